import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reportRefundAuthorizations } from '../../../src/provider/payments/report-refunds.js';
import {
  startQuoteResponder,
  type QuoteResponder,
  type QuoteResponderOptions,
} from '../../../src/provider/service-link/quote-responder.js';
import type { ProviderState } from '../../../src/provider/state/provider-state.js';
import { buildOrder, configuration } from '../../support/fixtures.js';
import { startReportingProvider, type ReportingProvider } from '../../support/provider/reporting-provider.js';
import { startTestService, type TestService } from '../../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const PROVIDER = 'daemon';
const FUNDER = `0x${'aa'.repeat(20)}`;
/** Well formed (low s, v 27): what the service refuses it refuses for whose signature it is, not for its form. */
const SIGNATURE = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b`;

/**
 * The daemon's signed refunds go out with `refundAuthorization` through its real connection to a real service, and
 * are sent again until the service answers them for good. The service here follows no Ethereum node and its
 * contract is of the second version: each refusal is one sending again cannot change.
 */
describe('the provider sends its signed refunds with refundAuthorization until the service answers them', () => {
  const onV2 = buildOrder({ label: 'refunds-v2', market: MARKET, state: 'Funded', funds: [499_500_000_000_000_000n] });
  const unknown = buildOrder({ label: 'refunds-unknown', market: MARKET });
  let harness: TestService;
  let provider: ReportingProvider;
  let state: ProviderState;
  let responder: QuoteResponder;
  let options: QuoteResponderOptions;

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({ markets: [MARKET], providers: [] }),
      orders: [{ ...onV2.record, providerId: PROVIDER, claimAddress: PAYOUT }],
    });
    provider = await startReportingProvider(harness, PROVIDER, PAYOUT);
    ({ state, responder, options } = provider);
    for (const order of [onV2, unknown]) {
      const refunds = [{ funder: FUNDER, signature: SIGNATURE }];
      assert.equal(state.recordRefundSignatures(order.record.id, order.record.paymentHash, refunds, 1), 'recorded');
    }
  });
  after(async () => {
    provider.close();
    await harness.close();
  });

  test('a lost connection leaves every signature to be sent again', async () => {
    const offline = await startQuoteResponder(options);
    offline.close();
    const round = await reportRefundAuthorizations(state, offline.sendRefundAuthorization);
    assert.deepEqual(round.settled, []);
    assert.deepEqual([...round.retry].sort(), [onV2.record.id, unknown.record.id].sort());
    assert.equal(state.unreportedRefundSignatures().length, 2);
  });

  test('refusals for good are not sent again: an order unknown, a contract without cooperative refunds', async () => {
    const acks = new Map<string, unknown>();
    const round = await reportRefundAuthorizations(state, async (message) => {
      const ack = await responder.sendRefundAuthorization(message);
      acks.set(message.orderId, ack);
      return ack;
    });
    assert.deepEqual(acks.get(onV2.record.id), { success: false, message: 'ContractHasNoCooperativeRefund' });
    assert.deepEqual(acks.get(unknown.record.id), { success: false, message: 'OrderNotFound' });
    assert.deepEqual([...round.settled].sort(), [onV2.record.id, unknown.record.id].sort());
    assert.deepEqual(round.retry, []);
    assert.deepEqual(state.unreportedRefundSignatures(), []);
    assert.equal((await harness.fresh.store.getOrder(onV2.record.id))?.state, 'Funded');
    assert.deepEqual(await reportRefundAuthorizations(state, responder.sendRefundAuthorization), {
      settled: [],
      retry: [],
    });
  });
});

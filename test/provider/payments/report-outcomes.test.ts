import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reportOutcomes } from '../../../src/provider/payments/report-outcomes.js';
import {
  startQuoteResponder,
  type QuoteResponder,
  type QuoteResponderOptions,
} from '../../../src/provider/service-link/quote-responder.js';
import type { ProviderState } from '../../../src/provider/state/provider-state.js';
import { buildOrder, configuration, type BuiltOrder } from '../../support/fixtures.js';
import { startReportingProvider, type ReportingProvider } from '../../support/provider/reporting-provider.js';
import { startTestService, type TestService } from '../../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** The provider's name at the service, which orders it won record. */
const PROVIDER = 'daemon';

describe('the provider reports payment outcomes with paymentResult until the service takes them', () => {
  const paid = buildOrder({ label: 'report-paid', market: MARKET, state: 'Funded', funds: [499_500_000_000_000_000n] });
  const failed = buildOrder({
    label: 'report-failed',
    market: MARKET,
    state: 'Funded',
    funds: [499_500_000_000_000_000n],
  });
  const unfunded = buildOrder({ label: 'report-unfunded', market: MARKET, state: 'WaitingForFundingTx' });
  let harness: TestService;
  let provider: ReportingProvider;
  let state: ProviderState;
  let responder: QuoteResponder;
  let options: QuoteResponderOptions;

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({ markets: [MARKET], providers: [] }),
      orders: [paid, failed, unfunded].map((order) => ({ ...order.record, providerId: PROVIDER })),
    });
    provider = await startReportingProvider(harness, PROVIDER, PAYOUT);
    ({ state, responder, options } = provider);
  });
  after(async () => {
    provider.close();
    await harness.close();
  });

  const settle = (order: BuiltOrder, outcome: 'succeeded' | 'failed') => {
    const { record } = order;
    state.beginPayment({
      paymentHash: record.paymentHash,
      orderId: record.id,
      invoice: record.invoice,
      amountMillisatoshis: 35_000_000n,
      feeLimitMillisatoshis: 1_000n,
      nowMs: 1,
    });
    if (outcome === 'succeeded') {
      state.recordPaymentSucceeded(
        record.paymentHash,
        { preimage: order.preimage, feeMillisatoshis: 0n, nowMs: 2 },
        { chain: 'ethereum', refundHeight: record.htlc.refundableAtBlockHeight ?? 0 },
      );
    } else {
      state.recordPaymentFailed(record.paymentHash, 'no-route', 2);
    }
  };

  test('a lost connection leaves every outcome to be sent again', async () => {
    settle(paid, 'succeeded');
    const offline = await startQuoteResponder(options);
    offline.close();
    const round = await reportOutcomes(state, offline.sendPaymentResult);
    assert.deepEqual(round, { settled: [], retry: [paid.record.paymentHash] });
    assert.equal(state.unreportedPayments().length, 1);
  });

  test('the preimage completes the order; a failure is taken; a refusal for good is not sent again', async () => {
    settle(failed, 'failed');
    settle(unfunded, 'succeeded');
    const acks = new Map<string, unknown>();
    const round = await reportOutcomes(state, async (message) => {
      const ack = await responder.sendPaymentResult(message);
      acks.set(message.orderId, ack);
      return ack;
    });
    assert.deepEqual(acks.get(paid.record.id), { success: true });
    assert.deepEqual(acks.get(failed.record.id), { success: true });
    assert.deepEqual(acks.get(unfunded.record.id), { success: false, message: 'OrderNotFunded' });
    assert.deepEqual(
      [...round.settled].sort(),
      [paid.record.paymentHash, failed.record.paymentHash, unfunded.record.paymentHash].sort(),
    );
    assert.deepEqual(round.retry, []);
    const completed = await harness.fresh.store.getOrder(paid.record.id);
    assert.equal(completed?.state, 'Complete');
    assert.equal(completed.paymentPreimage, paid.preimage);
    assert.equal((await harness.fresh.store.getOrder(failed.record.id))?.state, 'Funded', 'a failure changes nothing');
    assert.notEqual((await harness.fresh.store.getOrder(unfunded.record.id))?.state, 'Complete');
    assert.deepEqual(state.unreportedPayments(), []);
    assert.deepEqual(await reportOutcomes(state, responder.sendPaymentResult), { settled: [], retry: [] });
  });
});

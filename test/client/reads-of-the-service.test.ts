/** The client against a running service: what it reads is what the service answered, typed. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serviceReads } from '../../src/client/http-reads.js';
import { findMarket } from '../../src/domain/markets.js';
import { configuration, SWAP_CONTRACT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import {
  ethereumServedMarket,
  startQuotingProvider,
  type QuotingProvider,
} from '../support/provider/quoting-provider.js';
import { request, startTestService, type TestService } from '../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

let harness: TestService;
let provider: QuotingProvider;

before(async () => {
  harness = await startTestService('sqlite', {
    configuration: configuration({ markets: [MARKET], providers: [] }),
    engine: { quoteDeadlineMs: 500 },
  });
  provider = await startQuotingProvider(harness, 'daemon', PAYOUT, [
    ethereumServedMarket(findMarket(MARKET)!, 30n * 10n ** 18n, () => ({
      swapContractAddress: SWAP_CONTRACT_ADDRESS,
      payoutAddress: PAYOUT,
    })),
  ]);
});
after(async () => {
  provider.close();
  await harness.close();
});

test("an order and its funding details read through the client are the service's answers, typed", async () => {
  const user = await harness.connect('/user/v1');
  const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
  const answer = await request(user, 'requestQuote', { market: MARKET, invoice: invoice.invoice });
  assert.ok(answer.success, 'quoted');
  const quoted = answer.message as { orderId: string; amount: string };
  const reads = serviceReads({ serviceUrl: harness.service.url, timeoutMs: 5_000 });

  const order = await reads.order(quoted.orderId);
  assert.ok(order !== 'not-found');
  assert.deepEqual(
    [order.id, order.state, order.invoice, order.paymentHash],
    [quoted.orderId, 'WaitingForFundingTx', invoice.invoice, invoice.paymentHash],
  );
  const funding = await reads.fundDetails(quoted.orderId);
  assert.ok(funding !== 'not-found');
  assert.equal(funding.amount, quoted.amount);
  assert.ok('unsignedFundingTx' in funding.details, 'an Ethereum funding call');
  assert.equal(funding.details.unsignedFundingTx.to.toLowerCase(), SWAP_CONTRACT_ADDRESS.toLowerCase());

  const unknown = '00000000-0000-4000-8000-000000000000';
  assert.equal(await reads.order(unknown), 'not-found');
  assert.equal(await reads.fundDetails(unknown), 'not-found');
});

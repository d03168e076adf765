/** The client against a running service: what it reads is what the service answered, typed. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { serviceReads } from '../../src/client/http-reads.js';
import { findMarket } from '../../src/domain/markets.js';
import { ethereumQuoteDetails } from '../../src/provider/ethereum/ethereum-quote-details.js';
import type { MarketPricing } from '../../src/provider/rules/pricing.js';
import { startQuoteResponder, type QuoteResponder } from '../../src/provider/service-link/quote-responder.js';
import { ProviderState } from '../../src/provider/state/provider-state.js';
import { configuration, SWAP_CONTRACT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { addProvider, request, startTestService, type TestService } from '../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const PRICING: MarketPricing = {
  onchainPerBitcoin: 30n * 10n ** 18n,
  feeBasisPoints: 50n,
  baseFee: 0n,
  minimumMillisatoshis: 10_000_000n,
  maximumMillisatoshis: 1_000_000_000n,
  routingFeeLimitBasisPoints: 100n,
  minimumInvoiceLifetimeMs: 600_000,
};

let harness: TestService;
let dir: string;
let state: ProviderState;
let responder: QuoteResponder;

before(async () => {
  harness = await startTestService('sqlite', {
    configuration: configuration({ markets: [MARKET], providers: [] }),
    engine: { quoteDeadlineMs: 500 },
  });
  const keys = await addProvider(harness.fresh.store, 'daemon', PAYOUT);
  dir = mkdtempSync(join(tmpdir(), 'lnswap-client-reads-'));
  state = ProviderState.open(join(dir, 'provider.sqlite'));
  responder = await startQuoteResponder({
    serviceUrl: harness.service.url,
    credentials: keys,
    markets: [
      {
        market: findMarket(MARKET)!,
        limits: PRICING,
        pricing: () => PRICING,
        details: (order) =>
          ethereumQuoteDetails({ swapContractAddress: SWAP_CONTRACT_ADDRESS, payoutAddress: PAYOUT }, order),
      },
    ],
    fundWindowMs: 10 * 60_000,
    state,
    capacity: async () => ({
      nodeNetwork: 'simnet',
      spendableMillisatoshis: 10_000_000_000n,
      atRiskMillisatoshis: 0n,
      inventoryLimitMillisatoshis: 10_000_000_000n,
    }),
    now: () => Date.now(),
    ackTimeoutMs: 5_000,
  });
});
after(async () => {
  responder.close();
  state.close();
  rmSync(dir, { recursive: true, force: true });
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

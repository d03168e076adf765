import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildMakerQuote, type MakerTerms } from '../../../examples/maker-quote.js';
import { LnswapError } from '../../../src/domain/errors.js';
import type { EngineOptions } from '../../../src/engine/operations/options.js';
import { QuoteDesk, type ProviderQuoteRequest } from '../../../src/engine/lifecycle/quote-desk.js';
import { LIVE_ORDER_STATES } from '../../../src/domain/states.js';
import {
  BITCOIN_VIEW,
  buildOrder,
  configuration,
  hashOfInvoice,
  payReq,
  provider,
  seedStore,
  SWAP_CONTRACT_ADDRESS,
} from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../../support/stores.js';
import { privateKeyFor, refundAddressFor, testEngineOptions } from '../../support/engine/helpers.js';
import { refusal } from '../../support/refusal.js';

/** The payout address the operator registered for the maker `label`. */
function payoutAddressFor(label: string): string {
  return `0x${createHash('sha256').update(label).digest('hex').slice(0, 40)}`;
}

function makerTerms(label: string, premium: bigint): MakerTerms {
  return {
    claimPrivateKey: privateKeyFor(label),
    fundWindowMs: 10 * 60_000,
    timelockBlocks: 144,
    bitcoinBlockHeight: BITCOIN_VIEW.blockHeight,
    swapContractAddress: SWAP_CONTRACT_ADDRESS,
    ethereumPayoutAddress: payoutAddressFor(label),
    price: (market, satoshis) => (market === 'BTC_LBTC' ? satoshis + premium : (satoshis + premium) * 10_000_000_000n),
  };
}

for (const kind of STORE_KINDS) {
  describe(`QuoteDesk on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    const refundAddress = refundAddressFor('user');
    // Created now, so their invoices have not expired.
    const stored = buildOrder({ label: 'already quoted', state: 'WaitingForFundingTx', createdAt: Date.now() });
    const elapsed = buildOrder({ label: 'window elapsed', state: 'FundWindowElapsed', createdAt: Date.now() });

    before(async () => {
      fresh = await openFreshStore(kind);
      await seedStore(fresh.store, {
        configuration: configuration({
          providers: [
            provider('maker-1', true, {
              BTC_LBTC: payReq(60n, 1000n, 1_000_000n),
              ETH_LBTC: payReq(60n, 1000n, 1_000_000n),
            }),
          ],
        }),
        orders: [stored.record, elapsed.record],
      });
    });
    after(() => fresh?.dispose());

    /** A desk whose providers answer each request with the given makers' quotes, a few ms apart. */
    function deskWithMakers(makers: readonly MakerTerms[], overrides: Partial<EngineOptions> = {}) {
      const requests: ProviderQuoteRequest[] = [];
      const refusals: string[] = [];
      const desk: QuoteDesk = new QuoteDesk({
        store: fresh.store,
        options: testEngineOptions(overrides),
        now: Date.now,
        solicitQuotes: (request) => {
          requests.push(request);
          makers.forEach((terms, index) =>
            setTimeout(
              () => {
                try {
                  const provider = { id: `bidder-${index}`, ethereumPayoutAddress: terms.ethereumPayoutAddress };
                  desk.submitMakerQuote(request.orderId, buildMakerQuote(request, terms), Date.now(), provider);
                } catch (error) {
                  refusals.push((error as LnswapError).token);
                }
              },
              5 * (index + 1),
            ),
          );
        },
      });
      return { desk, requests, refusals };
    }

    test('the cheapest valid quote becomes an order waiting for funds', async () => {
      const { desk, requests } = deskWithMakers([
        makerTerms('dear', 900n),
        makerTerms('cheap', 100n),
        makerTerms('middle', 500n),
      ]);
      const { invoice, paymentHash } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n });
      const started = Date.now();
      const order = await desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress }, 'quote-request-7');

      assert.equal(requests.length, 1);
      const [request] = requests;
      assert.deepEqual(request, {
        orderId: order.id,
        market: 'BTC_LBTC',
        invoice,
        refundAddress,
        requestExpiryTimestampMs: request?.requestExpiryTimestampMs,
      });
      assert.ok(Date.now() >= (request?.requestExpiryTimestampMs ?? Infinity), 'answered after the deadline');
      assert.ok((request?.requestExpiryTimestampMs ?? 0) - started >= testEngineOptions().quoteDeadlineMs);

      const expected = buildMakerQuote(request as ProviderQuoteRequest, makerTerms('cheap', 100n));
      const details = expected.details as {
        redeemScript: string;
        payToAddress: string;
        refundableAtBlockHeight: number;
      };
      assert.equal(order.amount, 50_100n);
      assert.equal(order.state, 'WaitingForFundingTx');
      assert.equal(order.expiresAt, expected.quoteExpiryTimestampMs);
      assert.equal(order.payToAddress, details.payToAddress);
      assert.deepEqual(order.htlc, {
        redeemScript: details.redeemScript,
        refundableAtBlockHeight: details.refundableAtBlockHeight,
      });
      assert.equal(order.invoiceHash, hashOfInvoice(invoice));
      assert.equal(order.paymentHash, paymentHash);
      assert.equal(order.refundAddress, refundAddress);
      assert.equal(order.providerId, 'bidder-1');
      assert.equal(Object.hasOwn(order, 'claimAddress'), false);
      assert.deepEqual(await fresh.store.getOrder(order.id), order);
      assert.deepEqual(await fresh.store.getOrderHistory(order.id), [
        {
          state: 'WaitingForFundingTx',
          at: order.createdAt,
          cause: { source: 'request', reason: 'requestQuote', requestId: 'quote-request-7' },
        },
      ]);
    });

    test('an Ethereum order is paid to the swap contract, and names the winner and its payout address', async () => {
      const { desk } = deskWithMakers([makerTerms('dear eth', 50n), makerTerms('eth', 0n)]);
      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 20_000n });
      const order = await desk.requestQuote({ market: 'ETH_LBTC', invoice });
      assert.equal(order.amount, 200_000_000_000_000n);
      assert.equal(order.payToAddress, SWAP_CONTRACT_ADDRESS);
      assert.equal(order.htlc.redeemScript, undefined);
      assert.equal(order.refundAddress, undefined);
      assert.equal(order.providerId, 'bidder-1');
      assert.equal(order.claimAddress, payoutAddressFor('eth'));
      assert.deepEqual(await fresh.store.getOrder(order.id), order);
    });

    test('NoQuotesAvailable when nobody answers, or only with quotes that fail verification', async () => {
      const silent = deskWithMakers([]);
      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n });
      assert.equal(
        await refusal(silent.desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress })),
        'NoQuotesAvailable',
      );

      const cheating = deskWithMakers([{ ...makerTerms('cheat', 0n), timelockBlocks: 10_000 }]);
      assert.equal(
        await refusal(cheating.desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress })),
        'NoQuotesAvailable',
      );
      assert.deepEqual(cheating.refusals, ['TimelockIsOutOfBounds']);
    });

    test('SwapAlreadyInProgress while an auction or a live order holds the invoice; InvoiceAlreadyHadOrder after an elapsed one', async () => {
      const { desk, requests } = deskWithMakers([makerTerms('maker', 0n)]);
      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n });
      const first = desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress });
      while (requests.length === 0) await sleep(1);
      // Same payment hash on another market: a second HTLC on it could be claimed without paying again.
      assert.equal(await refusal(desk.requestQuote({ market: 'ETH_LBTC', invoice })), 'SwapAlreadyInProgress');
      await first;
      assert.equal(
        await refusal(desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress })),
        'SwapAlreadyInProgress',
      );
      assert.equal(
        await refusal(desk.requestQuote({ market: 'BTC_LBTC', invoice: stored.record.invoice, refundAddress })),
        'SwapAlreadyInProgress',
      );
      // Its address can still be paid late; once a second order's claim made the preimage public, such a payment
      // would be claimable without the invoice being paid for it. No provider is asked.
      const asked = requests.length;
      assert.equal(
        await refusal(desk.requestQuote({ market: 'BTC_LBTC', invoice: elapsed.record.invoice, refundAddress })),
        'InvoiceAlreadyHadOrder',
      );
      assert.equal(requests.length, asked);
    });

    test('TooManySwapsInFlight counts stored live orders and auctions under way', async () => {
      const inFlight = await fresh.store.countOrdersInStates(LIVE_ORDER_STATES);
      const { desk, requests } = deskWithMakers([makerTerms('maker', 0n)], { maxSwapsInFlight: inFlight + 1 });
      const first = desk.requestQuote({
        market: 'BTC_LBTC',
        invoice: makeInvoice({ network: 'mainnet', amountSatoshis: 5000n }).invoice,
        refundAddress,
      });
      while (requests.length === 0) await sleep(1);
      const second = makeInvoice({ network: 'mainnet', amountSatoshis: 5000n }).invoice;
      assert.equal(
        await refusal(desk.requestQuote({ market: 'BTC_LBTC', invoice: second, refundAddress })),
        'TooManySwapsInFlight',
      );
      await first;
      assert.equal(
        await refusal(desk.requestQuote({ market: 'BTC_LBTC', invoice: second, refundAddress })),
        'TooManySwapsInFlight',
      );
    });

    test('more auctions at once than Node allows listeners by default raise no leak warning', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on('warning', onWarning);
      try {
        const { desk } = deskWithMakers([makerTerms('maker', 0n)]);
        const invoices = Array.from(
          { length: 15 },
          () => makeInvoice({ network: 'mainnet', amountSatoshis: 5000n }).invoice,
        );
        const orders = await Promise.all(
          invoices.map((invoice) => desk.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress })),
        );
        assert.equal(orders.length, 15);
        await sleep(10);
        assert.deepEqual(warnings, []);
      } finally {
        process.off('warning', onWarning);
      }
    });

    test('a quote for an auction this desk does not run is too late', () => {
      const { desk } = deskWithMakers([]);
      assert.throws(
        () => desk.submitMakerQuote(stored.record.id, {}, Date.now(), { id: 'bidder-0' }),
        (error: unknown) => {
          return error instanceof LnswapError && error.token === 'QuoteSubmittedTooLate';
        },
      );
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { startProviderBot, type ProviderBot } from '../../examples/provider-bot.js';
import { requestQuote, type Quote } from '../../examples/user-client.js';
import { anvilSkipReason } from '../support/anvil.js';
import { startSwapChain, swapChainConfiguration, type SwapChain } from '../support/chains/ethereum/swap-chain.js';
import { BOT_PAY_REQ, makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { startTwoInstances, type TwoInstances } from '../support/e2e/two-instances.js';
import { makeInvoice } from '../support/invoices.js';
import { skipReason, STORE_KINDS } from '../support/stores.js';
import {
  addProvider,
  connectClient,
  eventually,
  refusalOf,
  request,
  startTestService,
  type Client,
  type TestService,
} from '../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const REFUND_DELAY = 12;
/** The sweeper waits this long past a window's end; the watcher reads the chain past the edge meanwhile. */
const GRACE_MS = 1_000;
/**
 * The watcher's and the sweeper's poll: a funding mined at the edge is sent 300 ms past it by the wall clock, so the
 * watcher has 700 ms to read it before the sweeper may act; a seventh of that leaves room on a loaded machine without
 * polling Anvil and the store more often than the cases need.
 */
const POLL_INTERVAL_MS = 100;
/** The chain view poll only announces block heights to clients, which no case here reads. */
const CHAIN_VIEW_POLL_INTERVAL_MS = 250;

/**
 * The cases spend their time waiting for fund windows to pass, each group on a chain and service of its own: the
 * groups wait side by side, each group's cases in turn.
 */
describe('the fund window edge, the stores side by side', { concurrency: true }, () => {
  for (const kind of STORE_KINDS) {
    describe(
      `the fund window edge on Anvil and ${kind}: judged by block timestamps; no second order for the invoice`,
      { skip: anvilSkipReason || skipReason(kind), concurrency: 1 },
      () => {
        let chain: SwapChain;
        let harness: TestService;
        let bot: ProviderBot;
        let user: Client;
        const terms = { ...makerTerms('maker', 100n, 60_000) };

        before(async () => {
          chain = await startSwapChain({ refundDelay: REFUND_DELAY });
          harness = await startTestService(kind, {
            configuration: swapChainConfiguration(chain, MARKET),
            engine: {
              quoteDeadlineMs: 300,
              minFundWindowMs: 500,
              sweepIntervalMs: POLL_INTERVAL_MS,
              chainViewPollIntervalMs: CHAIN_VIEW_POLL_INTERVAL_MS,
              fundWindowGraceMs: GRACE_MS,
            },
            ethereum: { rpcUrl: chain.rpcUrl, confirmations: 1, pollIntervalMs: POLL_INTERVAL_MS, startHeight: 0 },
          });
          const keys = await addProvider(harness.fresh.store, 'maker');
          Object.assign(terms, { swapContractAddress: chain.contractAddress });
          bot = await startProviderBot({
            socket: await connectClient(harness.service.url, '/provider/v1'),
            ...keys,
            markets: { [MARKET]: BOT_PAY_REQ },
            terms,
          });
          user = await harness.connect('/user/v1');
        });
        after(async () => {
          bot?.close();
          await harness?.close();
          await chain?.close();
        });

        const stateOf = async (orderId: string) => (await harness.fresh.store.getOrder(orderId))?.state;
        const reaches = (orderId: string, state: string) =>
          eventually(async () => (await stateOf(orderId)) === state, `${orderId} to reach ${state}`);
        const historyOf = async (orderId: string) =>
          (await harness.fresh.store.getOrderHistory(orderId)).map((entry) => [entry.state, entry.cause?.reason]);
        /** Seconds since the epoch of the chain's latest block. */
        const latestBlockSeconds = async () => Number((await chain.node.publicClient.getBlock()).timestamp);

        /**
         * An order whose fund window ends in `windowMs`, by default a few seconds from now and after every block mined
         * so far (Anvil's mining of many blocks at once runs its clock ahead of the wall's), so that its funding block
         * can be placed either side of the edge.
         */
        async function quoteEndingSoon(windowMs?: number): Promise<{ quote: Quote; paymentHash: string }> {
          const chainAheadMs = Math.max(0, (await latestBlockSeconds()) * 1000 - Date.now());
          terms.fundWindowMs = windowMs ?? chainAheadMs + 2_200;
          const { invoice, paymentHash } = makeInvoice({
            network: 'simnet',
            amountSatoshis: 20_000n,
            expirySeconds: 7200,
          });
          const quote = await requestQuote(user, { market: MARKET, invoice });
          return { quote: { ...quote, invoice } as Quote & { invoice: string }, paymentHash };
        }

        /** The user sends the quote's own funding transaction in a block whose timestamp is `seconds`. */
        async function fundInBlockAt(quote: Quote, seconds: number): Promise<Hex> {
          const { to, data, value } = (quote.details as { unsignedFundingTx: { to: Hex; data: Hex; value: string } })
            .unsignedFundingTx;
          await chain.node.testClient.setNextBlockTimestamp({ timestamp: BigInt(seconds) });
          const hash = await chain.node
            .wallet(chain.account('user'))
            .sendTransaction({ to, data, value: BigInt(value) });
          const receipt = await chain.node.publicClient.waitForTransactionReceipt({ hash });
          assert.equal(receipt.status, 'success');
          assert.equal(
            Number((await chain.node.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp),
            seconds,
          );
          return hash;
        }

        test('a funding mined before the window ends counts in time, though the service reads it after the end', async () => {
          const { quote } = await quoteEndingSoon();
          const expiresAt = quote.expiryTimestampMs;
          // Past the edge by the wall clock before anything is mined: a sweeper going by the clock alone would call the
          // order elapsed here, and the funding below late.
          while (Date.now() < expiresAt + 300) await sleep(20);
          const seconds = Math.floor((expiresAt - 400) / 1000);
          assert.ok(seconds > (await latestBlockSeconds()), 'the funding block can be placed before the edge');
          const fundTx = await fundInBlockAt(quote, seconds);
          await reaches(quote.orderId, 'Funded');
          // Past the grace too: the sweeper leaves a funded order alone.
          while (Date.now() < expiresAt + GRACE_MS + 300) await sleep(50);
          assert.equal(await stateOf(quote.orderId), 'Funded');
          assert.deepEqual(await historyOf(quote.orderId), [
            ['WaitingForFundingTx', 'requestQuote'],
            ['WaitingForFundingTxConfirmation', 'fundingSeen'],
            ['Funded', 'fundingConfirmed'],
          ]);
          assert.deepEqual(
            (await harness.fresh.store.getOrder(quote.orderId))?.transactions.map((transaction) => transaction.id),
            [fundTx],
          );
        });

        test('a funding mined after the window ends is late: FundWindowElapsed, then refundable', async () => {
          const { quote } = await quoteEndingSoon();
          const expiresAt = quote.expiryTimestampMs;
          while (Date.now() < expiresAt + 300) await sleep(20);
          const seconds = Math.floor(expiresAt / 1000) + 1;
          const fundTx = await fundInBlockAt(quote, seconds);
          await reaches(quote.orderId, 'WaitingForRefundTx');
          const history = await harness.fresh.store.getOrderHistory(quote.orderId);
          assert.deepEqual(
            history.map((entry) => [entry.state, entry.cause?.reason, entry.cause?.txId]),
            [
              ['WaitingForFundingTx', 'requestQuote', undefined],
              ['FundWindowElapsed', 'fundingLate', fundTx],
              ['WaitingForRefundTx', 'fundingSeen', fundTx],
            ],
          );
        });

        test("an elapsed order's invoice gets no second order; a late funding of it is its funder's alone to take back", async () => {
          const { quote, paymentHash } = await quoteEndingSoon(500);
          await reaches(quote.orderId, 'FundWindowElapsed');
          const { invoice } = quote as Quote & { invoice: string };
          // The case: a second order for the invoice would complete, its claim would make the preimage public,
          // and a late funding of the first would be claimable with it. No provider is even asked.
          assert.equal(await refusalOf(user, 'requestQuote', { market: MARKET, invoice }), 'InvoiceAlreadyHadOrder');
          assert.deepEqual(
            (
              await harness.fresh.store.findOrdersByPaymentHash(paymentHash, [
                'WaitingForFundingTx',
                'FundWindowElapsed',
              ])
            ).map((order) => order.id),
            [quote.orderId],
          );

          // The user's wallet sends the funding late (from its queue): the order shows it, to be refunded.
          const { to, data, value } = (quote.details as { unsignedFundingTx: { to: Hex; data: Hex; value: string } })
            .unsignedFundingTx;
          const fundTx = await chain.node
            .wallet(chain.account('user'))
            .sendTransaction({ to, data, value: BigInt(value) });
          const funded = await chain.node.publicClient.waitForTransactionReceipt({ hash: fundTx });
          await reaches(quote.orderId, 'WaitingForRefundTx');

          // A stranger can neither claim it (no preimage but the payee's, which no claim revealed) nor refund it.
          await assert.rejects(
            chain.claim(quote.orderId, 'ab'.repeat(32), 'user', 'attacker'),
            /WrongPreimage|revert/i,
          );
          await assert.rejects(chain.refund(quote.orderId, 'attacker'), /SlotNotOpen|revert/i);
          await assert.rejects(chain.refund(quote.orderId, 'user'), /RefundHeightNotReached|revert/i);

          // By timelock, the funder takes the whole slot back.
          const refundHeight = Number(funded.blockNumber) + REFUND_DELAY;
          const height = await chain.height();
          if (height <= refundHeight) await chain.mine(refundHeight - height + 1);
          const before = await chain.balance('user');
          const refundTx = await chain.refund(quote.orderId, 'user');
          const receipt = await chain.node.publicClient.waitForTransactionReceipt({ hash: refundTx });
          assert.equal(receipt.status, 'success');
          const gas = receipt.gasUsed * receipt.effectiveGasPrice;
          assert.equal((await chain.balance('user')) - before + gas, BigInt(value));
          await reaches(quote.orderId, 'Refunded');
          // Refunded frees the invoice no more than elapsed did: another account can still open a slot of the order.
          assert.equal(await refusalOf(user, 'requestQuote', { market: MARKET, invoice }), 'InvoiceAlreadyHadOrder');
        });
      },
    );
  }

  describe(
    'two instances: an elapsed order keeps its invoice from a second order on both',
    { skip: skipReason('postgres'), concurrency: 1 },
    () => {
      let instances: TwoInstances;
      let maker: RunningBot;
      const clients: Client[] = [];

      before(async () => {
        instances = await startTwoInstances({
          engine: { quoteDeadlineMs: 300, minFundWindowMs: 300, sweepIntervalMs: 50, chainViewPollIntervalMs: 50 },
          sockets: { clusterHeartbeatIntervalMs: 100, clusterHeartbeatTimeoutMs: 1_000 },
        });
        const { fresh, instanceA, instanceB } = instances;
        maker = await runBot(instanceA.url, await addProvider(fresh.store, 'maker'), makerTerms('maker', 100n, 400));
        clients.push(await connectClient(instanceA.url, '/user/v1'), await connectClient(instanceB.url, '/user/v1'));
      });
      after(async () => {
        for (const client of clients) client.close();
        maker?.bot.close();
        await instances?.close();
      });

      test('both users are told InvoiceAlreadyHadOrder, at the same instant, and no order is made', async () => {
        const [userA, userB] = clients as [Client, Client];
        await eventually(
          async () => (await instances.fresh.store.getConfiguration()).providers.some((provider) => provider.active),
          'the maker to be active',
        );
        const { invoice, paymentHash } = makeInvoice({
          network: 'mainnet',
          amountSatoshis: 20_000n,
          expirySeconds: 7200,
        });
        const first = await request(userA, 'requestQuote', { market: 'ETH_LBTC', invoice });
        assert.ok(first.success, JSON.stringify(first));
        const { orderId } = first.message as Quote;
        await eventually(
          async () => (await instances.storeB.getOrder(orderId))?.state === 'FundWindowElapsed',
          'the window to pass',
        );
        const acks = await Promise.all([
          request(userA, 'requestQuote', { market: 'ETH_LBTC', invoice }),
          request(userB, 'requestQuote', { market: 'ETH_LBTC', invoice }),
        ]);
        assert.deepEqual(acks, [
          { success: false, message: 'InvoiceAlreadyHadOrder' },
          { success: false, message: 'InvoiceAlreadyHadOrder' },
        ]);
        const all = await instances.storeB.findOrdersByPaymentHash(paymentHash, [
          'WaitingForFundingTx',
          'FundWindowElapsed',
        ]);
        assert.deepEqual(
          all.map((order) => order.id),
          [orderId],
        );
        assert.equal(
          maker.requests.filter((quoteRequest) => quoteRequest.invoice === invoice).length,
          1,
          'no provider asked again',
        );
      });
    },
  );
});

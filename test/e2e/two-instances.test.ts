import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildMakerQuote } from '../../examples/maker-quote.js';
import type { Quote, StateChanged } from '../../examples/user-client.js';
import type { RunningService } from '../../src/service.js';
import { BITCOIN_VIEW, CHAINS, hex32 } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { skipReason } from '../support/stores.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import {
  addProvider,
  connectClient,
  eventually,
  recordEvents,
  request,
  succeed,
  type Client,
  type ServiceOverrides,
} from '../support/ws/harness.js';
import { BOT_PAY_REQ, makerTerms, runBot, WEI_PER_SATOSHI, type RunningBot } from '../support/e2e/bots.js';
import { startTwoInstances, type TwoInstances } from '../support/e2e/two-instances.js';
import { MOVE_CAUSE } from '../support/causes.js';

const OVERRIDES: ServiceOverrides = {
  engine: {
    quoteDeadlineMs: 600,
    minFundWindowMs: 300,
    sweepIntervalMs: 50,
    chainViewPollIntervalMs: 50,
    presenceIntervalMs: 200,
  },
  sockets: { clusterHeartbeatIntervalMs: 100, clusterHeartbeatTimeoutMs: 1_000, forwardedQuoteTimeoutMs: 2_000 },
};

async function getJson(baseUrl: string, path: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

describe(
  'two instances behind a load balancer, sharing one PostgreSQL database',
  { skip: skipReason('postgres') },
  () => {
    let instances: TwoInstances;
    const clients: Client[] = [];
    const bots: RunningBot[] = [];
    const refundAddress = refundAddressFor('user');

    async function connect(
      instance: RunningService,
      namespace: string,
      generation: 'v4' | 'v2' = 'v4',
    ): Promise<Client> {
      const client = await connectClient(instance.url, namespace, generation);
      clients.push(client);
      return client;
    }

    before(async () => {
      instances = await startTwoInstances(OVERRIDES);
    });
    after(async () => {
      for (const client of clients) client.close();
      for (const { bot } of bots) bot.close();
      await instances?.close();
    });

    test('a quote asked on one instance is answered by a provider on the other; both see the order elapse once', async () => {
      const keys = await addProvider(instances.fresh.store, 'maker-on-b');
      const bot = await runBot(instances.instanceB.url, keys, makerTerms('maker-on-b', 300n, 2_500));
      bots.push(bot);
      const user = await connect(instances.instanceA, '/user/v1');
      const watcherOnB = await connect(instances.instanceB, '/user/v1', 'v2');

      assert.deepEqual(await succeed(user, 'requestMarketRequirements', null), [
        { market: 'BTC_LBTC', payReq: BOT_PAY_REQ },
        { market: 'ETH_LBTC', payReq: BOT_PAY_REQ },
      ]);

      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 });
      let quote: Quote | undefined;
      // Until both instances listen on the database, a first request may reach no provider.
      await eventually(async () => {
        const ack = await request(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress });
        assert.ok(ack.success || ack.message === 'NoQuotesAvailable', JSON.stringify(ack));
        quote = ack.success ? (ack.message as Quote) : undefined;
        return ack.success;
      }, 'a quote across instances');
      assert.ok(quote);
      const asked = bot.requests.find((candidate) => candidate.orderId === quote?.orderId);
      assert.ok(asked);
      const expected = buildMakerQuote(asked, bot.terms);
      assert.deepEqual(quote, {
        orderId: expected.orderId,
        expiryTimestampMs: expected.quoteExpiryTimestampMs,
        amount: expected.amount,
        details: expected.details,
      });
      assert.deepEqual(bot.judgements.at(-1), { orderId: quote.orderId, ack: { success: true } });
      assert.deepEqual(await getJson(instances.instanceB.url, `/api/orders/${quote.orderId}/fundDetails`), quote);

      const seenOnA = recordEvents<StateChanged>(user, 'stateChanged');
      const seenOnB = recordEvents<StateChanged>(watcherOnB, 'stateChanged');
      await succeed(user, 'subscribeToOrderState', { orderId: quote.orderId });
      await succeed(watcherOnB, 'subscribeToOrderState', { orderId: quote.orderId });
      await eventually(() => seenOnA.length > 0 && seenOnB.length > 0, 'the fund window to elapse');
      // Both instances sweep; only the one whose compare-and-set won announces the move.
      await sleep(300);
      const elapsed = { orderId: quote.orderId, state: 'FundWindowElapsed', sequence: 2 };
      assert.deepEqual(seenOnA, [elapsed]);
      assert.deepEqual(seenOnB, [elapsed]);
      assert.equal(await getJson(instances.instanceA.url, `/api/orders/${quote.orderId}/state`), 'FundWindowElapsed');
    });

    test('an order funded through one instance completes through a provider on the other', async () => {
      const keys = await addProvider(instances.fresh.store, 'maker-on-a');
      const cheapOnA = await runBot(instances.instanceA.url, keys, makerTerms('maker-on-a', 0n, 60_000), 'v2');
      bots.push(cheapOnA);
      const user = await connect(instances.instanceB, '/user/v1');
      const { invoice, preimage } = makeInvoice({ network: 'mainnet', amountSatoshis: 10_000n, expirySeconds: 7200 });

      const quote = (await succeed(user, 'requestQuote', { market: 'ETH_LBTC', invoice })) as Quote;
      assert.equal(quote.amount, '0.003000000000000000', "the cheaper maker on A won B's auction");
      assert.deepEqual(cheapOnA.judgements.at(-1), { orderId: quote.orderId, ack: { success: true } });

      const changes = recordEvents<StateChanged>(user, 'stateChanged');
      await succeed(user, 'subscribeToOrderState', { orderId: quote.orderId });
      const fundId = `0x${hex32('two instances fund')}`;
      await instances.instanceA.transitions.apply({
        orderId: quote.orderId,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: Date.now(),
        transaction: { type: 'FUND', id: fundId, amount: 10_000n * WEI_PER_SATOSHI },
        cause: MOVE_CAUSE,
      });
      await instances.instanceA.transitions.apply({
        orderId: quote.orderId,
        from: 'WaitingForFundingTxConfirmation',
        to: 'Funded',
        at: Date.now(),
        cause: MOVE_CAUSE,
      });

      assert.deepEqual(await cheapOnA.bot.reportPayment(quote.orderId, hex32('wrong')), {
        success: false,
        message: 'InvalidPreimage',
      });
      assert.deepEqual(await cheapOnA.bot.reportPayment(quote.orderId, preimage), { success: true });
      await eventually(() => changes.length === 3, 'three state changes');
      assert.deepEqual(changes, [
        { orderId: quote.orderId, state: 'WaitingForFundingTxConfirmation', sequence: 2, transactionId: fundId },
        { orderId: quote.orderId, state: 'Funded', sequence: 3, transactionId: fundId },
        { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage },
      ]);
      const order = (await getJson(instances.instanceA.url, `/api/orders/${quote.orderId}`)) as {
        state: string;
        paymentPreimage: string;
      };
      assert.equal(order.state, 'Complete');
      assert.equal(order.paymentPreimage, preimage);
    });

    test('block heights reach subscribers on every instance once', async () => {
      const onA = await connect(instances.instanceA, '/user/v1');
      const onB = await connect(instances.instanceB, '/user/v1', 'v2');
      await succeed(onA, 'subscribeToBlockHeight', { network: 'bitcoin', subnet: 'mainnet' });
      await succeed(onB, 'subscribeToBlockHeight', { network: 'bitcoin', subnet: 'mainnet' });
      const heightsOnA = recordEvents(onA, 'blockHeightChanged');
      const heightsOnB = recordEvents(onB, 'blockHeightChanged');
      await instances.fresh.store.setChainViews({
        ...CHAINS,
        bitcoin: { ...BITCOIN_VIEW, blockHeight: BITCOIN_VIEW.blockHeight + 1 },
      });
      await eventually(() => heightsOnA.length > 0 && heightsOnB.length > 0, 'the new height');
      await sleep(200);
      const event = { network: 'bitcoin', subnet: 'mainnet', height: BITCOIN_VIEW.blockHeight + 1 };
      assert.deepEqual(heightsOnA, [event]);
      assert.deepEqual(heightsOnB, [event]);
    });

    test('a provider leaving one instance disappears from the requirements of the other', async () => {
      for (const { bot } of bots) bot.close();
      await eventually(async () => {
        const requirements = await getJson(instances.instanceA.url, '/api/markets/requirements');
        return Array.isArray(requirements) && requirements.length === 0;
      }, 'the providers to be inactive');
    });
  },
);

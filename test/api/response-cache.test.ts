/**
 * Answers about orders are kept serialized; these tests hold the cache to never answering anything
 * the store would not: after moves, imports and new orders for an invoice, by this process or
 * another, and with the cache switched off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { buildOrder, configuration, hashOfInvoice, seedStore, settledOrdersOfOneInvoice } from '../support/fixtures.js';
import { openFreshStore, STORE_KINDS, skipReason, type FreshStore } from '../support/stores.js';
import { JSON_TYPE } from '../support/api/harness.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';
import { eventually } from '../support/eventually.js';

const { complete, refunded } = settledOrdersOfOneInvoice('cache');
const invoiceHash = hashOfInvoice(complete.record.invoice);
const live = buildOrder({ label: 'cache-live', state: 'WaitingForFundingTx' });
// Not live: the store refuses a live order for an invoice that had orders (InvoiceAlreadyHadOrder).
const retry = buildOrder({
  label: 'cache-retry',
  sameInvoiceAs: complete,
  createdAt: complete.record.createdAt + 1,
  state: 'FundWindowElapsed',
});

async function bodyOf(app: FastifyInstance, url: string): Promise<string> {
  const response = await app.inject({ method: 'GET', url });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['content-type'], JSON_TYPE);
  return response.body;
}

/** Reads `url` twice, so its answer is kept (from the second read of a key on), and returns it. */
async function keptBodyOf(app: FastifyInstance, url: string): Promise<string> {
  await bodyOf(app, url);
  return bodyOf(app, url);
}

/**
 * When another process's write shows. SQLite: from the next request on, and a request that follows
 * a commit is read in a later turn of the event loop than the requests before it. PostgreSQL: once
 * the notification arrives, a moment after the commit.
 */
async function seenAfterOtherProcessWrite(kind: string, check: () => Promise<void>): Promise<void> {
  if (kind === 'sqlite') {
    await new Promise(setImmediate);
    return check();
  }
  return eventually(check, "the other process's write to show");
}

for (const kind of STORE_KINDS) {
  describe(`answers about orders cached in memory (${kind})`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    let cached: FastifyInstance;
    let uncached: FastifyInstance;
    let elsewhere: Store;

    before(async () => {
      fresh = await openFreshStore(kind);
      await seedStore(fresh.store, {
        configuration: configuration(),
        orders: [complete.record, refunded.record, live.record],
      });
      cached = await buildApiServer({ store: fresh.store });
      uncached = await buildApiServer({ store: fresh.store, responseCacheBytes: 0 });
      elsewhere = await openStore(fresh.url);
    });

    after(async () => {
      await cached.close();
      await uncached.close();
      await elsewhere.close();
      await fresh.dispose();
    });

    test('a kept answer is byte for byte what the uncached route sends', async () => {
      for (const url of [
        `/api/orders/${complete.record.id}`,
        `/api/orders/${complete.record.id.toUpperCase()}/transactions`,
        `/api/orders?invoiceHash=${invoiceHash}`,
        `/api/orders?invoiceHash=${invoiceHash.toUpperCase()}&onchainTicker=btc`,
      ]) {
        const first = await keptBodyOf(cached, url);
        assert.equal(await bodyOf(cached, url), first, url);
        assert.equal(await bodyOf(uncached, url), first, url);
      }
    });

    test('a new order for the invoice shows in the next lookup by invoice hash', async () => {
      const url = `/api/orders?invoiceHash=${invoiceHash}`;
      assert.equal(JSON.parse(await keptBodyOf(cached, url)).length, 2);
      await fresh.store.createOrder(retry.record, CREATION_CAUSE);
      const orders = JSON.parse(await bodyOf(cached, url)) as { id: string }[];
      assert.deepEqual(
        orders.map((order) => order.id),
        [retry.record.id, refunded.record.id, complete.record.id],
      );
    });

    test('an import by this process replaces kept answers at once', async () => {
      const url = `/api/orders/${complete.record.id}`;
      await keptBodyOf(cached, url);
      await seedStore(fresh.store, { orders: [{ ...complete.record, amount: 35591n }] });
      assert.equal(JSON.parse(await bodyOf(cached, url)).amount, '0.00035591');
    });

    test('an import by another process replaces kept answers', async () => {
      const url = `/api/orders/${complete.record.id}`;
      await keptBodyOf(cached, url);
      await seedStore(elsewhere, { orders: [{ ...complete.record, amount: 35592n }] });
      const seen = async () => assert.equal(JSON.parse(await bodyOf(cached, url)).amount, '0.00035592');
      await seenAfterOtherProcessWrite(kind, seen);
    });

    test("another process's new order for the invoice shows in lookups by invoice hash", async () => {
      const url = `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=BTC`;
      const before = JSON.parse(await keptBodyOf(cached, url)) as unknown[];
      const another = buildOrder({
        label: 'cache-another',
        sameInvoiceAs: complete,
        createdAt: complete.record.createdAt + 2,
        state: 'FundWindowElapsed',
      });
      await elsewhere.createOrder(another.record, CREATION_CAUSE);
      const seen = async () =>
        assert.equal((JSON.parse(await bodyOf(cached, url)) as unknown[]).length, before.length + 1);
      await seenAfterOtherProcessWrite(kind, seen);
    });

    test('a move of an order shows at once in every answer about it', async () => {
      const url = `/api/orders/${live.record.id}`;
      assert.equal(JSON.parse(await keptBodyOf(cached, url)).state, 'WaitingForFundingTx');
      await keptBodyOf(cached, `${url}/transactions`);
      const funding = { type: 'FUND', id: 'ab'.repeat(32), amount: 35590n, outputIndex: 0 } as const;
      const moved = await fresh.store.transitionOrder({
        orderId: live.record.id,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: live.record.createdAt + 1000,
        transaction: funding,
        cause: MOVE_CAUSE,
      });
      assert.ok(moved);
      assert.equal(JSON.parse(await bodyOf(cached, url)).state, 'WaitingForFundingTxConfirmation');
      assert.deepEqual(JSON.parse(await bodyOf(cached, `${url}/transactions`)), [{ type: 'FUND', id: funding.id }]);
    });

    test('a move by another process shows in the answers about the order', async () => {
      const url = `/api/orders?invoiceHash=${hashOfInvoice(live.record.invoice)}`;
      assert.equal(JSON.parse(await keptBodyOf(cached, url))[0].state, 'WaitingForFundingTxConfirmation');
      await elsewhere.transitionOrder({
        orderId: live.record.id,
        from: 'WaitingForFundingTxConfirmation',
        to: 'Funded',
        at: live.record.createdAt + 2000,
        cause: MOVE_CAUSE,
      });
      const seen = async () => assert.equal(JSON.parse(await bodyOf(cached, url))[0].state, 'Funded');
      await seenAfterOtherProcessWrite(kind, seen);
    });

    test('providers changed by another process show in the requirements', async () => {
      const url = '/api/markets/BTC_LBTC/requirements';
      const before = JSON.parse(await bodyOf(cached, url)) as { payReq: { maxBaseUnits: string } };
      assert.equal(before.payReq.maxBaseUnits, '4294967');
      await elsewhere.upsertProvider({
        id: 'maker-2',
        active: true,
        markets: { BTC_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 1000n, maxBaseUnits: 9_000_000n } },
      });
      const seen = async () =>
        assert.equal((JSON.parse(await bodyOf(cached, url)) as typeof before).payReq.maxBaseUnits, '9000000');
      await seenAfterOtherProcessWrite(kind, seen);
    });
  });
}

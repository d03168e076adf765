import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { exportSnapshot } from '../../src/snapshot/export-snapshot.js';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';
import { KNOWN_CATALOG } from '../../src/domain/market-catalog.js';
import { orderToSnapshot } from '../../src/snapshot/snapshot-format.js';
import { buildOrder, uuidFor } from '../support/fixtures.js';
import {
  chunked,
  exportText,
  render,
  validDocument,
  type SnapshotDocument,
} from '../support/snapshot/snapshot-fixtures.js';
import { repositoryPath } from '../support/repository.js';

const DEMO_SNAPSHOT = repositoryPath('demo', 'snapshot.json');

async function withStore<T>(kind: (typeof STORE_KINDS)[number], use: (fresh: FreshStore) => Promise<T>): Promise<T> {
  const fresh = await openFreshStore(kind);
  try {
    return await use(fresh);
  } finally {
    await fresh.dispose();
  }
}

/** `count` orders cloned from the sample's first one, a second apart, each with its own id. */
function manyOrders(count: number): SnapshotDocument {
  const document = validDocument();
  const template = document.orders[0]!;
  const start = Date.parse(template.createdAt as string);
  document.orders = Array.from({ length: count }, (_, index) => ({
    ...template,
    id: uuidFor(`many ${index}`),
    createdAt: new Date(start + index * 1000).toISOString(),
    expiryTimestamp: new Date(start + index * 1000 + 1_800_000).toISOString(),
  }));
  return document;
}

for (const kind of STORE_KINDS) {
  describe(`snapshot round trip on ${kind}`, { skip: skipReason(kind) }, () => {
    test('export -> import -> export is byte-identical', async () => {
      const first = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(validDocument())));
        return exportText(store);
      });
      const second = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(first, 1));
        return exportText(store);
      });
      assert.equal(second, first);
      const parsed = JSON.parse(first) as SnapshotDocument;
      assert.deepEqual(
        parsed.orders.map((order) => order.id),
        validDocument().orders.map((order) => order.id),
      );
    });

    test('the demo snapshot is what exporting it gives back', async () => {
      const demo = await readFile(DEMO_SNAPSHOT, 'utf8');
      await withStore(kind, async ({ store }) => {
        const summary = await importSnapshot(store, chunked(demo, 1000));
        assert.equal(summary.orders, (JSON.parse(demo) as SnapshotDocument).orders.length);
        assert.equal(await exportText(store), demo);
      });
    });

    test('spellings are normalized: case of ids and markets, compact ids, trailing zeros', async () => {
      const document = validDocument();
      const order = document.orders[1]!;
      const canonicalId = order.id as string;
      order.id = canonicalId.replaceAll('-', '').toUpperCase();
      order.market = 'btc_lbtc';
      order.amount = `${order.amount as string}0`;
      document.markets = ['btc_lbtc', 'Eth_Lbtc'];
      await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(document)));
        const stored = await store.getOrder(canonicalId);
        assert.equal(stored?.market, 'BTC_LBTC');
        assert.deepEqual((await store.getConfiguration()).markets, ['BTC_LBTC', 'ETH_LBTC']);
        const exported = JSON.parse(await exportText(store)) as SnapshotDocument;
        const canonical = { ...order, id: canonicalId, market: 'BTC_LBTC', amount: validDocument().orders[1]!.amount };
        assert.deepEqual(exported.orders[1], canonical);
      });
    });

    test('members may come in any order', async () => {
      const document = validDocument();
      const reordered = JSON.stringify({
        orders: document.orders,
        providers: document.providers,
        chains: document.chains,
        markets: document.markets,
        version: document.version,
      });
      const canonical = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(document)));
        return exportText(store);
      });
      await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(reordered, 50));
        assert.equal(await exportText(store), canonical);
      });
    });

    test('an order whose id already exists is replaced', async () => {
      await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(validDocument())));
        const document = validDocument();
        document.orders = [{ ...document.orders[1]!, state: 'Refunded', transactions: [] }];
        const summary = await importSnapshot(store, chunked(render(document)));
        assert.equal(summary.orders, 1);
        const replaced = await store.getOrder(document.orders[0]!.id as string);
        assert.equal(replaced?.state, 'Refunded');
        assert.deepEqual(replaced?.transactions, []);
        const exported = JSON.parse(await exportText(store)) as SnapshotDocument;
        assert.equal(exported.orders.length, 3);
      });
    });

    test('an empty store exports a snapshot that imports', async () => {
      const empty = await withStore(kind, ({ store }) => exportText(store));
      assert.equal(empty, '{"version":1,\n"markets":[],\n"chains":{},\n"providers":[],\n"orders":[]}\n');
      await withStore(kind, async ({ store }) => {
        assert.deepEqual(await importSnapshot(store, chunked(empty)), { markets: 0, providers: 0, orders: 0 });
      });
    });

    test('thousands of orders stream through in batches, and export waits for a slow reader', async () => {
      const document = manyOrders(2500);
      await withStore(kind, async ({ store }) => {
        assert.equal((await importSnapshot(store, chunked(render(document), 4096), { batchSize: 300 })).orders, 2500);
        let largestBacklog = 0;
        const received: Buffer[] = [];
        const slowReader = new Writable({
          highWaterMark: 1024,
          write(chunk: Buffer, _encoding, done) {
            largestBacklog = Math.max(largestBacklog, this.writableLength);
            received.push(Buffer.from(chunk));
            setImmediate(done);
          },
        });
        const { orders } = await exportSnapshot(store, slowReader);
        assert.equal(orders, 2500);
        const text = Buffer.concat(received).toString('utf8');
        assert.equal(text.length > 2_000_000, true);
        // Without backpressure the whole export would queue up; with it, at most one flush waits.
        assert.ok(largestBacklog < 100 * 1024, `the reader fell ${largestBacklog} bytes behind`);
        assert.deepEqual(
          (JSON.parse(text) as SnapshotDocument).orders.map((order) => order.id),
          document.orders.map((order) => order.id),
        );
      });
    });
  });
}

test("a refunded Ethereum slot's amount stays out of the snapshot: only FUND transactions carry one", () => {
  const { record } = buildOrder({
    label: 'slot refund',
    market: 'ETH_LBTC',
    funds: [300n, 700n],
    state: 'WaitingForRefundTx',
  });
  const refund = { type: 'REFUND', id: `0x${'b1'.repeat(32)}`, amount: 300n, blockHeight: 9_231_300 } as const;
  const written = orderToSnapshot({ ...record, transactions: [...record.transactions, refund] }, KNOWN_CATALOG);
  assert.deepEqual(written.transactions.at(-1), { type: 'REFUND', id: refund.id, blockHeight: refund.blockHeight });
  assert.ok(written.transactions.slice(0, 2).every((transaction) => transaction.amount !== undefined));
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { BulkLoad } from '../../src/store/sqlite/bulk-load.js';
import { migrateSqlite } from '../../src/store/sqlite/migrate.js';
import { prepareStatements } from '../../src/store/sqlite/statements.js';
import { prepareWrites } from '../../src/store/sqlite/writes.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { CONFIGURATION, makeOrder } from '../support/store/fixtures.js';

function orderIndexes(db: Database.Database): unknown[] {
  return db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' ORDER BY name")
    .all();
}

describe('SQLite import into an empty orders table', () => {
  let fresh: FreshStore;
  let inspect: Database.Database;
  const indexes = () => orderIndexes(inspect);

  before(async () => {
    fresh = await openFreshStore('sqlite');
    inspect = new Database(fresh.url.slice('sqlite:'.length), { readonly: true });
  });
  after(async () => {
    inspect.close();
    await fresh.dispose();
  });

  test('leaves every index of the orders table as the migrations made it, whether it commits or not', async () => {
    const migrated = indexes();
    assert.ok(migrated.length >= 4);
    await assert.rejects(
      fresh.store.importAtomically(async (session) => {
        await session.writeOrders([makeOrder(1)]);
        throw new Error('abandoned');
      }),
    );
    assert.deepEqual(indexes(), migrated);
    await fresh.store.importAtomically(async (session) => {
      await session.writeConfiguration(CONFIGURATION);
      await session.writeOrders([makeOrder(1), makeOrder(2, { invoiceHash: makeOrder(1).invoiceHash })]);
      // Another connection has the database open: the import stays in WAL mode, and that connection reads on.
      assert.equal(inspect.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(inspect.prepare('SELECT count(*) FROM orders').pluck().get(), 0);
    });
    assert.deepEqual(indexes(), migrated);
    const plan = inspect
      .prepare('EXPLAIN QUERY PLAN SELECT id FROM orders WHERE invoice_hash = ?')
      .all(makeOrder(1).invoiceHash) as { detail: string }[];
    assert.match(plan.map((step) => step.detail).join('\n'), /USING (COVERING )?INDEX orders_by_invoice_hash/);
    assert.deepEqual(
      (await fresh.store.findOrdersByInvoiceHash(makeOrder(1).invoiceHash)).map((order) => order.id),
      [makeOrder(2).id, makeOrder(1).id],
    );
  });
});

describe('SQLite import with the database to itself', () => {
  let fresh: FreshStore;
  const path = () => fresh.url.slice('sqlite:'.length);
  const journalMode = () => {
    const db = new Database(path(), { readonly: true });
    try {
      return db.pragma('journal_mode', { simple: true });
    } finally {
      db.close();
    }
  };

  before(async () => {
    fresh = await openFreshStore('sqlite');
  });
  after(async () => {
    await fresh.dispose();
  });

  test('runs in rollback-journal mode and returns to WAL, whether it commits or not', async () => {
    const modesSeen: unknown[] = [];
    await assert.rejects(
      fresh.store.importAtomically(async () => {
        modesSeen.push(journalMode());
        throw new Error('abandoned');
      }),
    );
    assert.equal(journalMode(), 'wal');
    await fresh.store.importAtomically(async (session) => {
      await session.writeOrders([makeOrder(1)]);
      modesSeen.push(journalMode());
    });
    assert.deepEqual(modesSeen, ['delete', 'delete']);
    assert.equal(journalMode(), 'wal');
    assert.deepStrictEqual(await fresh.store.getOrder(makeOrder(1).id), makeOrder(1));
  });

  test('into an empty orders table, a repeated id replaces the row this import wrote for it', async () => {
    const other = await openFreshStore('sqlite');
    try {
      const first = makeOrder(3);
      const replacement = makeOrder(3, { state: 'Funded', amount: 7n, transactions: [] });
      await other.store.importAtomically(async (session) => {
        await session.writeOrders([first, makeOrder(4)]);
        await session.writeOrders([replacement]);
      });
      assert.deepStrictEqual(await other.store.getOrder(first.id), replacement);
      assert.deepStrictEqual(
        (await other.store.getOrderHistory(first.id)).map((change) => change.state),
        ['WaitingForFundingTx', 'Funded'],
      );
      assert.deepStrictEqual(await other.store.getOrder(makeOrder(4).id), makeOrder(4));
    } finally {
      await other.dispose();
    }
  });

  test('into an empty orders table, a repeated id the caller promised away fails the import, which writes nothing', async () => {
    const other = await openFreshStore('sqlite');
    try {
      const distinctOrderIds = { distinctOrderIds: true };
      await assert.rejects(
        other.store.importAtomically(async (session) => {
          await session.writeOrders([makeOrder(3), makeOrder(4)]);
          await session.writeOrders([makeOrder(3, { state: 'Funded' })]);
        }, distinctOrderIds),
        /UNIQUE constraint failed: orders\.id/,
      );
      assert.equal(await other.store.getOrder(makeOrder(3).id), undefined);
      assert.equal(await other.store.getOrder(makeOrder(4).id), undefined);
      assert.deepStrictEqual(await other.store.getOrderHistory(makeOrder(3).id), []);
      await other.store.importAtomically(
        (session) => session.writeOrders([makeOrder(3), makeOrder(4)]),
        distinctOrderIds,
      );
      assert.deepStrictEqual(await other.store.getOrder(makeOrder(3).id), makeOrder(3));
      assert.deepStrictEqual(await other.store.getOrder(makeOrder(4).id), makeOrder(4));
    } finally {
      await other.dispose();
    }
  });
});

describe('SQLite bulk load rebuilding the indexes', () => {
  test('rebuilds every dropped index and gives the connection back its own page cache and sorter threads', () => {
    const db = new Database(':memory:');
    try {
      migrateSqlite(db);
      const migrated = orderIndexes(db);
      db.pragma('cache_size = -4096');
      db.pragma('threads = 0');
      db.exec('BEGIN');
      const bulkLoad = new BulkLoad(db, prepareWrites(db, prepareStatements(db)), { distinctOrderIds: true });
      assert.deepEqual(orderIndexes(db), []);
      bulkLoad.writeOrders([makeOrder(1), makeOrder(2)], 0);
      bulkLoad.finish();
      db.exec('COMMIT');
      assert.deepEqual(orderIndexes(db), migrated);
      assert.equal(db.pragma('cache_size', { simple: true }), -4096);
      assert.equal(db.pragma('threads', { simple: true }), 0);
      assert.equal(db.prepare('SELECT count(*) FROM orders INDEXED BY orders_by_id').pluck().get(), 2);
    } finally {
      db.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { CONFIGURATION, makeOrder } from './fixtures.js';

describe('SQLite import into an empty orders table', () => {
  let fresh: FreshStore;
  let inspect: Database.Database;
  const indexes = () =>
    inspect.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' ORDER BY name").all();

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

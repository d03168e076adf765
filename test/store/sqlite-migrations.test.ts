import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { openStore } from '../../src/store/open.js';
import { ORDER_COLUMNS, orderValues, transactionValues } from '../../src/store/order-rows.js';
import { assertTransactionListsKept, fundedOrderWithTwoTransactions, makeOrder } from '../support/store/fixtures.js';
import { MOVE_CAUSE } from '../support/causes.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lnswap-sqlite-migrations-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const funded = fundedOrderWithTwoTransactions(1);
const waiting = makeOrder(2);

/** A database as the first schema left it, with rows written by that schema's own statements. */
function writeFirstSchemaDatabase(path: string): void {
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  db.exec(SQLITE_MIGRATIONS[0]!.sql);
  db.prepare('INSERT INTO schema_migrations VALUES (1, ?, 0)').run(SQLITE_MIGRATIONS[0]!.name);
  for (const order of [waiting, funded]) {
    db.prepare(
      `INSERT INTO orders VALUES (${orderValues(order)
        .map(() => '?')
        .join(', ')})`,
    ).run(...orderValues(order));
    order.transactions.forEach((transaction, index) => {
      db.prepare('INSERT INTO order_transactions VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        order.id,
        index + 1,
        ...transactionValues(transaction),
      );
    });
  }
  const history = db.prepare('INSERT INTO order_state_history VALUES (?, ?, ?, ?)');
  history.run(waiting.id, 1, 'WaitingForFundingTx', 10);
  history.run(funded.id, 1, 'WaitingForFundingTx', 20);
  history.run(funded.id, 2, 'Funded', 30);
  db.close();
}

test('a database of the first schema keeps its orders, transactions and history through the migrations', async () => {
  const path = join(dir, 'first-schema.sqlite');
  writeFirstSchemaDatabase(path);
  const store = await openStore(`sqlite:${path}`);
  try {
    assert.deepStrictEqual(await store.getOrder(funded.id), funded);
    assert.deepStrictEqual(await store.getOrder(waiting.id), waiting);
    assert.deepStrictEqual(await store.getOrderHistory(funded.id), [
      { state: 'WaitingForFundingTx', at: 20 },
      { state: 'Funded', at: 30 },
    ]);
    assert.deepStrictEqual(
      (await store.findOrdersByInvoiceHash(funded.invoiceHash)).map((order) => order.id),
      [funded.id],
    );
    const completed = { orderId: funded.id, from: 'Funded', to: 'Complete', at: 40, cause: MOVE_CAUSE } as const;
    assert.ok(await store.transitionOrder(completed));
    assert.deepStrictEqual((await store.getOrderHistory(funded.id)).at(-1), {
      state: 'Complete',
      at: 40,
      cause: MOVE_CAUSE,
    });
  } finally {
    await store.close();
  }
  const db = new Database(path, { readonly: true });
  try {
    assert.deepStrictEqual(db.pragma('foreign_key_check'), []);
    assert.throws(() => db.prepare('SELECT order_id FROM order_transactions').all(), /no such column/);
  } finally {
    db.close();
  }
});

/** A database as schema version 5 left it, with `funded` and `waiting` written by that schema's columns. */
function writeVersionFiveDatabase(path: string): void {
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const migration of SQLITE_MIGRATIONS.filter(({ version }) => version <= 5)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
  }
  const columns = ORDER_COLUMNS.join(', ');
  for (const order of [funded, waiting]) {
    const values = orderValues(order);
    const { lastInsertRowid } = db
      .prepare(`INSERT INTO orders (${columns}) VALUES (${values.map(() => '?').join(', ')})`)
      .run(...values);
    // Written in reverse: the list on the row follows seq, not the order rows were written in.
    [...order.transactions.entries()].reverse().forEach(([index, transaction]) => {
      db.prepare('INSERT INTO order_transactions VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        lastInsertRowid,
        index + 1,
        ...transactionValues(transaction),
      );
    });
  }
  db.close();
}

test('version 6 puts each order transaction list on its row, and writes keep it in step with the table', async () => {
  const path = join(dir, 'version-five.sqlite');
  writeVersionFiveDatabase(path);
  const store = await openStore(`sqlite:${path}`);
  try {
    await assertTransactionListsKept(store, funded, waiting);
  } finally {
    await store.close();
  }
  const db = new Database(path, { readonly: true });
  try {
    const listed = db.prepare('SELECT transactions FROM orders ORDER BY internal_id').pluck().all();
    assert.deepStrictEqual(
      listed.map((text) => JSON.parse(text as string) as unknown),
      [funded.transactions.map(transactionValues), [['FUND', 'c'.repeat(64), '5', 2, null]]],
    );
  } finally {
    db.close();
  }
});

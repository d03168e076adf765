import { CREATION_CAUSE } from '../support/causes.js';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { LnswapError } from '../../src/domain/errors.js';
import type { OrderRecord } from '../../src/domain/order.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/migrations/postgres.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { openStore } from '../../src/store/open.js';
import { ORDER_COLUMNS, orderValues } from '../../src/store/order-rows.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { ORDER_STATES } from '../../src/domain/states.js';
import type { Store } from '../../src/store/store.js';
import { openFreshStore, POSTGRES_URL, STORE_KINDS, skipReason, type FreshStore } from '../support/stores.js';
import { hex64, makeOrder, orderId, useFreshStore } from '../support/store/fixtures.js';
import type { Migration } from '../../src/store/migrations/migration.js';

const paymentHash = hex64(0x11fe);
const swapAlreadyInProgress = (error: unknown) =>
  error instanceof LnswapError && error.token === 'SwapAlreadyInProgress';
const invoiceAlreadyHadOrder = (error: unknown) =>
  error instanceof LnswapError && error.token === 'InvoiceAlreadyHadOrder';

for (const kind of STORE_KINDS) {
  describe(`${kind} store: one live order per payment hash`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('a second live order is refused with SwapAlreadyInProgress; settled and refunding ones are not', async () => {
      const store = fresh.store();
      await store.createOrder(makeOrder(1, { paymentHash, state: 'PartiallyFunded' }), CREATION_CAUSE);
      for (const [n, state] of [
        [2, 'WaitingForFundingTx'],
        [3, 'Funded'],
      ] as const) {
        await assert.rejects(
          store.createOrder(makeOrder(n, { paymentHash, state }), CREATION_CAUSE),
          swapAlreadyInProgress,
        );
        assert.equal(await store.getOrder(orderId(n)), undefined, 'nothing of the refused order is written');
      }
      for (const [n, state] of [
        [4, 'FundWindowElapsed'],
        [5, 'Complete'],
        [6, 'WaitingForRefundTx'],
        [7, 'Refunded'],
      ] as const) {
        await store.createOrder(makeOrder(n, { paymentHash, state }), CREATION_CAUSE);
      }
      await store.createOrder(makeOrder(8, { paymentHash: hex64(0x11ff) }), CREATION_CAUSE);
      assert.equal((await store.findOrdersByPaymentHash(paymentHash, ['PartiallyFunded', 'Complete'])).length, 2);
    });

    test('a new live order is refused with InvoiceAlreadyHadOrder once an order of its payment hash ended', async () => {
      const store = fresh.store();
      for (const [n, state] of [
        [20, 'FundWindowElapsed'],
        [21, 'Refunded'],
        [22, 'Complete'],
        [23, 'WaitingForRefundTx'],
      ] as const) {
        const ended = hex64(0x1300 + n);
        await store.createOrder(makeOrder(n, { paymentHash: ended, state }), CREATION_CAUSE);
        await assert.rejects(
          store.createOrder(makeOrder(n + 100, { paymentHash: ended }), CREATION_CAUSE),
          invoiceAlreadyHadOrder,
          `after ${state}`,
        );
        assert.equal(await store.getOrder(orderId(n + 100)), undefined, 'nothing of the refused order is written');
        assert.deepEqual(
          (await store.findOrdersByPaymentHash(ended, ORDER_STATES)).map((order) => order.id),
          [orderId(n)],
        );
      }
    });
  });
}

describe('two instances creating orders of one payment hash at once', { skip: skipReason('postgres') }, () => {
  let fresh: FreshStore;
  let other: Store;
  before(async () => {
    fresh = await openFreshStore('postgres');
    other = await openStore(fresh.url);
  });
  after(async () => {
    await other?.close();
    await fresh?.dispose();
  });

  test('one live order wins each race; after an elapsed fund window both are refused', async () => {
    for (let round = 0; round < 20; round += 1) {
      const racing = hex64(0x1400 + round);
      const results = await Promise.allSettled([
        fresh.store.createOrder(makeOrder(200 + 2 * round, { paymentHash: racing }), CREATION_CAUSE),
        other.createOrder(makeOrder(201 + 2 * round, { paymentHash: racing }), CREATION_CAUSE),
      ]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1, `round ${round}`);
      const [refused] = results.flatMap((result): unknown[] => (result.status === 'rejected' ? [result.reason] : []));
      assert.ok(swapAlreadyInProgress(refused), `round ${round}: ${String(refused)}`);
    }
    const elapsed = hex64(0x1500);
    await fresh.store.createOrder(makeOrder(300, { paymentHash: elapsed }), CREATION_CAUSE);
    await fresh.store.transitionOrder({
      orderId: orderId(300),
      from: 'WaitingForFundingTx',
      to: 'FundWindowElapsed',
      at: Date.now(),
      cause: { source: 'timer', reason: 'fundWindowElapsed' },
    });
    const results = await Promise.allSettled([
      fresh.store.createOrder(makeOrder(301, { paymentHash: elapsed }), CREATION_CAUSE),
      other.createOrder(makeOrder(302, { paymentHash: elapsed }), CREATION_CAUSE),
    ]);
    assert.deepEqual(
      results.map((result) => result.status === 'rejected' && invoiceAlreadyHadOrder(result.reason)),
      [true, true],
    );
    assert.deepEqual(
      (await other.findOrdersByPaymentHash(elapsed, ORDER_STATES)).map((order) => order.id),
      [orderId(300)],
    );
  });

  test('an order that left the live states while a second one was being written refuses the second', async () => {
    // Another instance's order, created and then moved out of the live states (its fund window swept, a
    // blacklisted funder), both committed after this instance read the payment hash's orders but before its
    // insert: the read saw nothing, and the live index, once the first order is no longer live, holds nothing.
    const ended = hex64(0x1600);
    const target = parsePostgresUrl(fresh.url);
    const instance = new pg.Client({ connectionString: target.connectionString });
    await instance.connect();
    try {
      await instance.query(`SET search_path TO "${target.schema!}"`);
      await instance.query('BEGIN');
      await instance.query(insertOrder, orderValues(makeOrder(400, { paymentHash: ended })));
      const second = other.createOrder(makeOrder(401, { paymentHash: ended }), CREATION_CAUSE);
      const outcome = second.then(
        () => 'created',
        (error: unknown) => error,
      );
      await waitUntilBlockedBy(instance);
      await instance.query("UPDATE orders SET state = 'FundWindowElapsed' WHERE id = $1", [orderId(400)]);
      await instance.query('COMMIT');
      assert.ok(invoiceAlreadyHadOrder(await outcome), `the second order: ${String(await outcome)}`);
      assert.deepEqual(
        (await other.findOrdersByPaymentHash(ended, ORDER_STATES)).map((order) => order.id),
        [orderId(400)],
      );
    } finally {
      await instance.end();
    }
  });
});

/** Resolves once another session waits for `client`'s open transaction (the insert behind it). */
async function waitUntilBlockedBy(client: pg.Client): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const waiting = await client.query(
      'SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
    );
    if (waiting.rowCount !== 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('no session came to wait for the open transaction');
}

const [first, second] = [
  makeOrder(1, { paymentHash, state: 'WaitingForFundingTx', createdAt: 1 }),
  makeOrder(2, { paymentHash, state: 'Funded', createdAt: 2 }),
];
const settled = makeOrder(3, { paymentHash: hex64(0x1200), state: 'Complete' });
const insertOrder = `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}) VALUES (${ORDER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
const refusal = new RegExp(
  `Cannot apply database migration \\d+ \\(one live order per payment hash\\): several live orders share a payment hash ` +
    `\\(payment hash ${paymentHash} has orders ${first.id} \\(WaitingForFundingTx\\), ${second.id} \\(Funded\\)\\)`,
);

/** The migrations a database had before the one that adds the unique index of live orders. */
function migrationsBeforeTheIndex(migrations: readonly Migration[]): readonly Migration[] {
  const index = migrations.findIndex((migration) => migration.name === 'one live order per payment hash');
  assert.ok(index > 0, 'the migration that adds the index');
  return migrations.slice(0, index);
}

describe('migrating a database that already holds two live orders for one payment hash', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lnswap-live-orders-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function writeDatabaseBeforeTheIndex(path: string, orders: readonly OrderRecord[]): void {
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const migration of migrationsBeforeTheIndex(SQLITE_MIGRATIONS)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    const insert = db.prepare(insertOrder.replace(/\$\d+/g, '?'));
    for (const order of orders) insert.run(...orderValues(order));
    db.close();
  }

  test('SQLite refuses, naming the orders, and changes nothing', async () => {
    const path = join(dir, 'two-live.sqlite');
    writeDatabaseBeforeTheIndex(path, [first, second, settled]);
    await assert.rejects(openStore(`sqlite:${path}`), refusal);
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    db.close();
    assert.deepStrictEqual(
      versions,
      migrationsBeforeTheIndex(SQLITE_MIGRATIONS).map(({ version }) => version),
    );
  });

  test('SQLite migrates a database whose live orders have payment hashes of their own', async () => {
    const path = join(dir, 'one-live.sqlite');
    writeDatabaseBeforeTheIndex(path, [first, settled, makeOrder(4, { paymentHash, state: 'FundWindowElapsed' })]);
    const store = await openStore(`sqlite:${path}`);
    try {
      await assert.rejects(store.createOrder(makeOrder(5, { paymentHash }), CREATION_CAUSE), swapAlreadyInProgress);
    } finally {
      await store.close();
    }
  });

  test('PostgreSQL refuses, naming the orders, and changes nothing', { skip: skipReason('postgres') }, async () => {
    const schema = `lnswap_test_live_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      await admin.query(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      for (const migration of migrationsBeforeTheIndex(POSTGRES_MIGRATIONS)) {
        await admin.query(migration.sql);
        await admin.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [migration.version, migration.name]);
      }
      for (const order of [first, second, settled]) await admin.query(insertOrder, orderValues(order));
      const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
      await assert.rejects(openStore(url), refusal);
      const versions = await admin.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepStrictEqual(
        versions.rows.map((row: { version: number }) => row.version),
        migrationsBeforeTheIndex(POSTGRES_MIGRATIONS).map(({ version }) => version),
      );
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});

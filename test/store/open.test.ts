import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/migrations/postgres.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { POSTGRES_URL, skipReason } from '../support/stores.js';
import { makeOrder } from '../support/store/fixtures.js';
import { CREATION_CAUSE } from '../support/causes.js';

describe('openStore', () => {
  test('an unknown scheme is refused with a one-line message naming the accepted forms', async () => {
    await assert.rejects(openStore('mysql://localhost/db'), (error: Error) => {
      assert.match(error.message, /Unsupported database URL scheme "mysql:".*sqlite:PATH.*postgres:\/\//);
      assert.equal(error.message.includes('\n'), false);
      return true;
    });
    await assert.rejects(openStore('./data/lnswap.sqlite'), /Unsupported database URL/);
    await assert.rejects(openStore('sqlite:'), /Invalid SQLite database URL/);
  });

  test('sqlite::memory: opens a working, migrated store', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      assert.equal(store.dialect, 'sqlite');
      await store.createOrder(makeOrder(1), CREATION_CAUSE);
      assert.deepStrictEqual(await store.getOrder(makeOrder(1).id), makeOrder(1));
    } finally {
      await store.close();
    }
  });
});

describe('openStore with a SQLite file', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'lnswap-open-'));
  });
  after(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  test('creates missing parent directories, uses WAL, and keeps data across reopening', async () => {
    const path = join(directory, 'nested', 'deeper', 'lnswap.sqlite');
    const first = await openStore(`sqlite:${path}`);
    await first.createOrder(makeOrder(1), CREATION_CAUSE);
    await first.close();
    const second = await openStore(`sqlite:${path}`);
    try {
      assert.deepStrictEqual(await second.getOrder(makeOrder(1).id), makeOrder(1));
    } finally {
      await second.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.deepStrictEqual(
        db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
        SQLITE_MIGRATIONS.map(({ version, name }) => ({ version, name })),
      );
    } finally {
      db.close();
    }
  });

  test('a database from a newer lnswap is refused', async () => {
    const path = join(directory, 'newer.sqlite');
    await (await openStore(`sqlite:${path}`)).close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)").run();
    db.close();
    await assert.rejects(openStore(`sqlite:${path}`), /schema version 999/);
  });

  test('the order history cannot be rewritten, even by hand', async () => {
    const path = join(directory, 'history.sqlite');
    const store = await openStore(`sqlite:${path}`);
    await store.createOrder(makeOrder(1), CREATION_CAUSE);
    await store.close();
    const db = new Database(path);
    try {
      assert.throws(() => db.prepare("UPDATE order_state_history SET state = 'Complete'").run(), /append-only/);
      assert.throws(() => db.prepare('DELETE FROM order_state_history').run(), /append-only/);
    } finally {
      db.close();
    }
  });
});

describe('openStore with PostgreSQL', { skip: skipReason('postgres') }, () => {
  const schema = `lnswap_test_open_${process.pid}`;
  const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  before(async () => {
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  after(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  test('instances starting at once on a new schema create and migrate it exactly once', async () => {
    const stores = await Promise.all([
      openStore(url),
      openStore(url),
      openStore(url.replace('postgres:', 'postgresql:')),
    ]);
    try {
      assert.deepStrictEqual(
        stores.map((store) => store.dialect),
        ['postgres', 'postgres', 'postgres'],
      );
      await stores[0]!.createOrder(makeOrder(1), CREATION_CAUSE);
      assert.deepStrictEqual(await stores[2]!.getOrder(makeOrder(1).id), makeOrder(1));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const applied = await admin.query(`SELECT version FROM "${schema}".schema_migrations`);
    assert.deepStrictEqual(
      applied.rows,
      POSTGRES_MIGRATIONS.map(({ version }) => ({ version })),
    );
    const publicTables = await admin.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'orders'",
    );
    assert.equal(publicTables.rowCount, 0, 'nothing may leak into the default schema');
  });

  test('the order history cannot be rewritten, even by hand', async () => {
    const store = await openStore(url);
    try {
      await store.createOrder(makeOrder(2), CREATION_CAUSE);
    } finally {
      await store.close();
    }
    await assert.rejects(admin.query(`DELETE FROM "${schema}".order_state_history`), /append-only/);
  });

  test('an unreachable server fails the open instead of hanging', async () => {
    await assert.rejects(openStore('postgres://127.0.0.1:1/test?connect_timeout=2'));
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from '../../../src/store/migrations/postgres.js';
import { openStore } from '../../../src/store/open.js';
import { orderValues } from '../../../src/store/order-rows.js';
import { parsePostgresUrl } from '../../../src/store/postgres/connection-url.js';
import { MOVE_CAUSE } from '../../support/causes.js';
import { POSTGRES_URL, skipReason } from '../../support/stores.js';
import { makeOrder } from '../fixtures.js';

const schema = `lnswap_test_history_${randomBytes(6).toString('hex')}`;
const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
const funded = makeOrder(1, { state: 'Funded' });
let admin: pg.Client | undefined;

before(async () => {
  if (skipReason('postgres') !== false) return;
  admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`SET search_path TO "${schema}"`);
  await admin.query(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  );
  await admin.query(POSTGRES_MIGRATIONS[0]!.sql);
  await admin.query('INSERT INTO schema_migrations VALUES (1, $1, 0)', [POSTGRES_MIGRATIONS[0]!.name]);
  const values = orderValues(funded);
  await admin.query(`INSERT INTO orders VALUES (${values.map((_, index) => `$${index + 1}`).join(', ')})`, values);
  await admin.query(
    "INSERT INTO order_state_history VALUES ($1, 1, 'WaitingForFundingTx', 20), ($1, 2, 'Funded', 30)",
    [funded.id],
  );
});
after(async () => {
  await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin?.end();
});

test('a PostgreSQL database of the first schema keeps its history, without causes, and records them from then on', {
  skip: skipReason('postgres'),
}, async () => {
  const store = await openStore(url);
  try {
    assert.deepStrictEqual(await store.getOrderHistory(funded.id), [
      { state: 'WaitingForFundingTx', at: 20 },
      { state: 'Funded', at: 30 },
    ]);
    assert.ok(await store.transitionOrder({
      orderId: funded.id,
      from: 'Funded',
      to: 'Complete',
      at: 40,
      cause: MOVE_CAUSE,
    }));
    assert.deepStrictEqual((await store.getOrderHistory(funded.id)).at(-1), {
      state: 'Complete',
      at: 40,
      cause: MOVE_CAUSE,
    });
  } finally {
    await store.close();
  }
});

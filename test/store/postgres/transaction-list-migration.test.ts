import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from '../../../src/store/migrations/postgres.js';
import { openStore } from '../../../src/store/open.js';
import { ORDER_COLUMNS, orderValues, transactionValues } from '../../../src/store/order-rows.js';
import { parsePostgresUrl } from '../../../src/store/postgres/connection-url.js';
import { MOVE_CAUSE } from '../../support/causes.js';
import { POSTGRES_URL, skipReason } from '../../support/stores.js';
import { makeOrder } from '../fixtures.js';

const schema = `lnswap_test_transaction_list_${randomBytes(6).toString('hex')}`;
const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
const funded = makeOrder(1, {
  state: 'Funded',
  transactions: [
    { type: 'FUND', id: 'a'.repeat(64), amount: 1000n, outputIndex: 0, blockHeight: 612_000 },
    { type: 'FUND', id: 'b'.repeat(64), amount: 34_590n, outputIndex: 1 },
  ],
});
const waiting = makeOrder(2);
let admin: pg.Client | undefined;

/** A schema as version 5 left it, with rows written the way that version's statements wrote them. */
before(async () => {
  if (skipReason('postgres') !== false) return;
  admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`SET search_path TO "${schema}"`);
  await admin.query(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  );
  for (const migration of POSTGRES_MIGRATIONS.filter(({ version }) => version <= 5)) {
    await admin.query(migration.sql);
    await admin.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [migration.version, migration.name]);
  }
  const placeholders = ORDER_COLUMNS.map((_, index) => `$${index + 1}`).join(', ');
  for (const order of [funded, waiting]) {
    await admin.query(`INSERT INTO orders (${ORDER_COLUMNS.join(', ')}) VALUES (${placeholders})`, orderValues(order));
    // Written in reverse: the list on the row follows seq, not the order rows were written in.
    for (const [index, transaction] of [...order.transactions.entries()].reverse()) {
      await admin.query('INSERT INTO order_transactions VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        order.id,
        index + 1,
        ...transactionValues(transaction),
      ]);
    }
  }
});
after(async () => {
  await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin?.end();
});

test(
  'PostgreSQL version 6 puts each order transaction list on its row, and writes keep it in step with the table',
  {
    skip: skipReason('postgres'),
  },
  async () => {
    const store = await openStore(url);
    try {
      assert.deepStrictEqual(await store.getOrder(funded.id), funded);
      assert.deepStrictEqual(await store.findOrdersByInvoiceHash(funded.invoiceHash), [funded]);
      assert.deepStrictEqual(await store.getOrder(waiting.id), waiting);
      const funding = { type: 'FUND', id: 'c'.repeat(64), amount: 5n, outputIndex: 2 } as const;
      const move = { orderId: waiting.id, from: 'WaitingForFundingTx', to: 'WaitingForFundingTxConfirmation' } as const;
      assert.ok(await store.transitionOrder({ ...move, at: 50, cause: MOVE_CAUSE, transaction: funding }));
      assert.deepStrictEqual((await store.getOrder(waiting.id))?.transactions, [funding]);
    } finally {
      await store.close();
    }
    const listed = await admin!.query<{ transactions: unknown }>('SELECT transactions FROM orders ORDER BY created_at');
    assert.deepStrictEqual(
      listed.rows.map((row) => row.transactions),
      [funded.transactions.map(transactionValues), [['FUND', 'c'.repeat(64), '5', 2, null]]],
    );
  },
);

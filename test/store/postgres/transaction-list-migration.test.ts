import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStore } from '../../../src/store/open.js';
import { ORDER_COLUMNS, orderValues, transactionValues } from '../../../src/store/order-rows.js';
import { skipReason } from '../../support/stores.js';
import { assertTransactionListsKept, fundedOrderWithTwoTransactions, makeOrder } from '../../support/store/fixtures.js';
import { createSchemaAtVersion, type SchemaAtVersion } from '../../support/store/schema-at-version.js';

const funded = fundedOrderWithTwoTransactions(1);
const waiting = makeOrder(2);
let old: SchemaAtVersion | undefined;

/** A schema as version 5 left it, with rows written the way that version's statements wrote them. */
before(async () => {
  if (skipReason('postgres') !== false) return;
  old = await createSchemaAtVersion('transaction_list', 5);
  const placeholders = ORDER_COLUMNS.map((_, index) => `$${index + 1}`).join(', ');
  for (const order of [funded, waiting]) {
    await old.admin.query(
      `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}) VALUES (${placeholders})`,
      orderValues(order),
    );
    // Written in reverse: the list on the row follows seq, not the order rows were written in.
    for (const [index, transaction] of [...order.transactions.entries()].reverse()) {
      await old.admin.query('INSERT INTO order_transactions VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        order.id,
        index + 1,
        ...transactionValues(transaction),
      ]);
    }
  }
});
after(async () => {
  await old?.drop();
});

test(
  'PostgreSQL version 6 puts each order transaction list on its row, and writes keep it in step with the table',
  {
    skip: skipReason('postgres'),
  },
  async () => {
    const store = await openStore(old!.url);
    try {
      assert.deepStrictEqual(await store.findOrdersByInvoiceHash(funded.invoiceHash), [funded]);
      await assertTransactionListsKept(store, funded, waiting);
    } finally {
      await store.close();
    }
    const listed = await old!.admin.query<{ transactions: unknown }>(
      'SELECT transactions FROM orders ORDER BY created_at',
    );
    assert.deepStrictEqual(
      listed.rows.map((row) => row.transactions),
      [funded.transactions.map(transactionValues), [['FUND', 'c'.repeat(64), '5', 2, null]]],
    );
  },
);

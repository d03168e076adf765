import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStore } from '../../../src/store/open.js';
import { orderValues } from '../../../src/store/order-rows.js';
import { MOVE_CAUSE } from '../../support/causes.js';
import { skipReason } from '../../support/stores.js';
import { makeOrder } from '../../support/store/fixtures.js';
import { createSchemaAtVersion, type SchemaAtVersion } from '../../support/store/schema-at-version.js';

const funded = makeOrder(1, { state: 'Funded' });
let old: SchemaAtVersion | undefined;

before(async () => {
  if (skipReason('postgres') !== false) return;
  old = await createSchemaAtVersion('history', 1);
  const values = orderValues(funded);
  await old.admin.query(`INSERT INTO orders VALUES (${values.map((_, index) => `$${index + 1}`).join(', ')})`, values);
  await old.admin.query(
    "INSERT INTO order_state_history VALUES ($1, 1, 'WaitingForFundingTx', 20), ($1, 2, 'Funded', 30)",
    [funded.id],
  );
});
after(async () => {
  await old?.drop();
});

test(
  'a PostgreSQL database of the first schema keeps its history, without causes, and records them from then on',
  {
    skip: skipReason('postgres'),
  },
  async () => {
    const store = await openStore(old!.url);
    try {
      assert.deepStrictEqual(await store.getOrderHistory(funded.id), [
        { state: 'WaitingForFundingTx', at: 20 },
        { state: 'Funded', at: 30 },
      ]);
      assert.ok(
        await store.transitionOrder({
          orderId: funded.id,
          from: 'Funded',
          to: 'Complete',
          at: 40,
          cause: MOVE_CAUSE,
        }),
      );
      assert.deepStrictEqual((await store.getOrderHistory(funded.id)).at(-1), {
        state: 'Complete',
        at: 40,
        cause: MOVE_CAUSE,
      });
    } finally {
      await store.close();
    }
  },
);

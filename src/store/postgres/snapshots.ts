import { openImportSession } from '../import-session.js';
import { streamOrdersInBatches } from '../order-stream.js';
import type { SnapshotStore } from '../store.js';
import { notifyChange } from './change-feed.js';
import { orders, type PostgresContext } from './context.js';
import { inTransaction } from './pool.js';
import { SELECT_ORDERS_AFTER } from './queries.js';
import * as writes from './writes.js';

export function postgresSnapshots(context: PostgresContext): SnapshotStore {
  const { pool, changes } = context;
  return {
    async importAtomically(work) {
      await inTransaction(pool, async (client) => {
        const { session, end } = openImportSession({
          writeConfiguration: (configuration) => writes.writeConfiguration(client, configuration),
          writeOrders: (records) => writes.writeOrders(client, records, Date.now()),
          finishOrders: async () => {},
        });
        try {
          await work(session);
        } finally {
          end();
        }
        await notifyChange(client, changes.channel, { kind: 'anything' });
      });
      changes.report({ kind: 'anything' });
      // Until autovacuum catches up, a bulk-loaded table has no statistics and the planner may scan it whole.
      await pool.query('ANALYZE orders, order_transactions, order_state_history');
    },
    streamOrders: (batchSize) =>
      streamOrdersInBatches(
        (createdAt, id, limit) => orders(context, SELECT_ORDERS_AFTER, [createdAt, id, limit]),
        batchSize,
      ),
  };
}

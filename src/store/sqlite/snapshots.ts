import { openImportSession } from '../import-session.js';
import { streamOrdersInBatches } from '../order-stream.js';
import type { SnapshotStore } from '../store.js';
import { BulkLoad, IMPORT_CACHE_KIB, leaveWalWhileAlone, SERVING_CACHE_KIB, setCacheSize } from './bulk-load.js';
import { readOrders, type SqliteContext } from './context.js';

export function sqliteSnapshots(context: SqliteContext): SnapshotStore {
  const { db, statements, writes, changes } = context;
  return {
    async importAtomically(work, options = {}) {
      if (context.runningImport !== undefined) {
        throw new Error('Another import is already running on this SQLite database');
      }
      let finishImport!: () => void;
      context.runningImport = new Promise((resolve) => {
        finishImport = resolve;
      });
      let bulkLoad: BulkLoad | undefined;
      const { session, end } = openImportSession({
        writeConfiguration: async (configuration) => writes.writeConfiguration(configuration),
        writeOrders: async (orders) => bulkLoad!.writeOrders(orders, Date.now()),
        finishOrders: async () => bulkLoad!.finish(),
      });
      const returnToWal = leaveWalWhileAlone(db);
      try {
        setCacheSize(db, IMPORT_CACHE_KIB);
        db.exec('BEGIN IMMEDIATE');
        bulkLoad = new BulkLoad(db, writes, options);
        await work(session);
        bulkLoad.finish();
        db.exec('COMMIT');
        changes.report({ kind: 'anything' });
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      } finally {
        if (db.open) {
          setCacheSize(db, SERVING_CACHE_KIB);
          returnToWal();
        }
        end();
        context.runningImport = undefined;
        finishImport();
      }
    },
    streamOrders: (batchSize) =>
      streamOrdersInBatches(
        async (createdAt, id, limit) => readOrders(statements.selectOrdersAfter.all(createdAt, id, limit)),
        batchSize,
      ),
  };
}

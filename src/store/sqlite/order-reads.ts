import type { OrderRecord } from '../../domain/order.js';
import { BatchedReads } from '../batched-reads.js';
import {
  historyFromRows,
  sequencedHistoryFromRows,
  type HistoryRow,
  type SequencedHistoryRow,
} from '../history-rows.js';
import { invoiceHashOfRow, orderFromRow, orderIdOfRow, type OrderRow } from '../order-rows.js';
import type { OrderReadStore } from '../store.js';
import { readOrders, type SqliteContext } from './context.js';

export function sqliteOrderReads({ db, statements }: SqliteContext): OrderReadStore {
  /** Runs reads in one read transaction (a savepoint inside an import's). */
  const readTogether = db.transaction((read: () => OrderRow[]) => read());
  const ordersById = new BatchedReads<string, OrderRow, OrderRecord | undefined>({
    readRows: async (ids) =>
      readTogether(() =>
        ids.map((id) => statements.selectOrder.get(id) as OrderRow | undefined).filter((row) => row !== undefined),
      ),
    keyOf: orderIdOfRow,
    answer: ([row]) => (row === undefined ? undefined : orderFromRow(row)),
  });
  const ordersByInvoiceHash = new BatchedReads<string, OrderRow, OrderRecord[]>({
    readRows: async (invoiceHashes) =>
      readTogether(() => invoiceHashes.flatMap((hash) => statements.selectOrdersByInvoiceHash.all(hash) as OrderRow[])),
    keyOf: invoiceHashOfRow,
    answer: (rows) => rows.map(orderFromRow),
  });
  return {
    getOrder: (id) => ordersById.load(id),
    findOrdersByInvoiceHash: async (invoiceHash, onchainTicker) =>
      onchainTicker === undefined
        ? ordersByInvoiceHash.load(invoiceHash)
        : readOrders(statements.selectOrdersByInvoiceHashAndTicker.all(invoiceHash, onchainTicker.toUpperCase())),
    getOrderHistory: async (id) => historyFromRows(statements.selectHistory.all(id) as HistoryRow[]),
    getOrderHistorySince: async (id, afterSequence) =>
      sequencedHistoryFromRows(statements.selectHistorySince.all(id, afterSequence) as SequencedHistoryRow[]),
  };
}

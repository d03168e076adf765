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
import { orderRows, orders, rows, type PostgresContext } from './context.js';
import {
  SELECT_HISTORY,
  SELECT_HISTORY_SINCE,
  SELECT_ORDERS_BY_IDS,
  SELECT_ORDERS_BY_INVOICE_HASH_AND_TICKER,
  SELECT_ORDERS_BY_INVOICE_HASHES,
} from './queries.js';

export function postgresOrderReads(context: PostgresContext): OrderReadStore {
  const ordersById = new BatchedReads<string, OrderRow, OrderRecord | undefined>({
    readRows: (ids) => orderRows(context, SELECT_ORDERS_BY_IDS, [ids]),
    keyOf: orderIdOfRow,
    answer: ([row]) => (row === undefined ? undefined : orderFromRow(row)),
  });
  const ordersByInvoiceHash = new BatchedReads<string, OrderRow, OrderRecord[]>({
    readRows: (invoiceHashes) => orderRows(context, SELECT_ORDERS_BY_INVOICE_HASHES, [invoiceHashes]),
    keyOf: invoiceHashOfRow,
    answer: (found) => found.map(orderFromRow),
  });
  return {
    getOrder: (id) => ordersById.load(id),
    findOrdersByInvoiceHash: async (invoiceHash, onchainTicker) =>
      onchainTicker === undefined
        ? ordersByInvoiceHash.load(invoiceHash)
        : orders(context, SELECT_ORDERS_BY_INVOICE_HASH_AND_TICKER, [invoiceHash, onchainTicker.toUpperCase()]),
    getOrderHistory: async (id) => historyFromRows(await rows<HistoryRow>(context, SELECT_HISTORY, [id])),
    getOrderHistorySince: async (id, afterSequence) =>
      sequencedHistoryFromRows(await rows<SequencedHistoryRow>(context, SELECT_HISTORY_SINCE, [id, afterSequence])),
  };
}

import type { OrderReadStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardOrderReads(inner: OrderReadStore, guard: Guard): OrderReadStore {
  return {
    getOrder: (id) => guard(() => inner.getOrder(id)),
    findOrdersByInvoiceHash: (invoiceHash, onchainTicker) =>
      guard(() => inner.findOrdersByInvoiceHash(invoiceHash, onchainTicker)),
    getOrderHistory: (id) => guard(() => inner.getOrderHistory(id)),
    getOrderHistorySince: (id, afterSequence) => guard(() => inner.getOrderHistorySince(id, afterSequence)),
  };
}

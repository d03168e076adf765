import { LnswapError } from '../../domain/errors.js';
import type { OrderMoveStore } from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import { importSettled, readOrders, type SqliteContext } from './context.js';

export function sqliteOrderMoves(context: SqliteContext): OrderMoveStore {
  const { statements, writes, changes } = context;
  return {
    async createOrder(order, cause) {
      await importSettled(context);
      try {
        writes.createOrder(order, cause);
      } catch (error) {
        throw isLiveOrderConflict(error) ? new LnswapError('SwapAlreadyInProgress') : error;
      }
      changes.report({ kind: 'orderCreated', invoiceHash: order.invoiceHash });
    },
    async transitionOrder(transition) {
      assertTransitionAllowed(transition);
      await importSettled(context);
      const moved = writes.transitionOrder(transition);
      if (moved !== undefined) changes.report({ kind: 'orderMoved', orderId: transition.orderId });
      return moved;
    },
    listOrdersExpiredIn: async (state, now) => readOrders(statements.selectOrdersExpiredIn.all(state, now)),
    findOrdersByPaymentHash: async (paymentHash, states) =>
      readOrders(statements.selectOrdersByPaymentHash.all(paymentHash, JSON.stringify(states))),
    countOrdersInStates: async (states) => statements.countOrdersInStates.get(JSON.stringify(states)) as number,
  };
}

/**
 * SQLite names the columns of a violated unique index, not the index; only the live-order index is unique on
 * the payment hash alone, and only a new order in a live state can violate it.
 */
function isLiveOrderConflict(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && message === 'UNIQUE constraint failed: orders.payment_hash';
}

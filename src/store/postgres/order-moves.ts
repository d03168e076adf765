import { LnswapError } from '../../domain/errors.js';
import type { StoreChange } from '../change-feed.js';
import { LIVE_ORDER_INDEX } from '../migrations/live-orders.js';
import type { OrderMoveStore } from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import { notifyChange } from './change-feed.js';
import { orders, rows, writeAndNotify, type PostgresContext } from './context.js';
import { inTransaction } from './pool.js';
import { COUNT_ORDERS_IN_STATES, SELECT_ORDERS_BY_PAYMENT_HASH, SELECT_ORDERS_EXPIRED_IN } from './queries.js';
import * as writes from './writes.js';

export function postgresOrderMoves(context: PostgresContext): OrderMoveStore {
  const { pool, changes } = context;
  return {
    async createOrder(order, cause) {
      try {
        await writeAndNotify(context, { kind: 'orderCreated', invoiceHash: order.invoiceHash }, (client) =>
          writes.createOrder(client, order, cause),
        );
      } catch (error) {
        throw isLiveOrderConflict(error) ? new LnswapError('SwapAlreadyInProgress') : error;
      }
    },
    async transitionOrder(transition) {
      assertTransitionAllowed(transition);
      const change: StoreChange = { kind: 'orderMoved', orderId: transition.orderId };
      const sequence = await inTransaction(pool, async (client) => {
        const applied = await writes.transitionOrder(client, transition);
        if (applied !== undefined) await notifyChange(client, changes.channel, change);
        return applied;
      });
      if (sequence !== undefined) changes.report(change);
      return sequence;
    },
    listOrdersExpiredIn: (state, now) => orders(context, SELECT_ORDERS_EXPIRED_IN, [state, now]),
    findOrdersByPaymentHash: (paymentHash, states) =>
      orders(context, SELECT_ORDERS_BY_PAYMENT_HASH, [paymentHash, [...states]]),
    async countOrdersInStates(states) {
      const [row] = await rows<{ count: number }>(context, COUNT_ORDERS_IN_STATES, [[...states]]);
      return row?.count ?? 0;
    },
  };
}

/** Another instance created a live order for the same payment hash first (unique_violation on the live index). */
function isLiveOrderConflict(error: unknown): boolean {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === LIVE_ORDER_INDEX;
}

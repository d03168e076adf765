import type { OrderMoveStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardOrderMoves(inner: OrderMoveStore, guard: Guard): OrderMoveStore {
  return {
    createOrder: (order, cause) => guard(() => inner.createOrder(order, cause)),
    transitionOrder: (transition) => guard(() => inner.transitionOrder(transition)),
    listOrdersExpiredIn: (state, now) => guard(() => inner.listOrdersExpiredIn(state, now)),
    findOrdersByPaymentHash: (paymentHash, states) => guard(() => inner.findOrdersByPaymentHash(paymentHash, states)),
    countOrdersInStates: (states) => guard(() => inner.countOrdersInStates(states)),
  };
}

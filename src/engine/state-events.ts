import type { OrderRecord, TransactionType } from '../domain/order.js';
import type { OrderState } from '../domain/states.js';
import type { StateTransition } from '../store/store.js';

/** The `stateChanged` payload users receive while subscribed to an order. */
export interface StateChangedEvent {
  readonly orderId: string;
  readonly state: OrderState;
  /** On PartiallyFunded, Funded and Refunded: the transaction that caused the move. */
  readonly transactionId?: string;
  /** On Complete. */
  readonly preimage?: string;
}

const TRANSACTION_TYPE_SHOWN: Partial<Record<OrderState, TransactionType>> = {
  PartiallyFunded: 'FUND',
  Funded: 'FUND',
  Refunded: 'REFUND',
};

/** True when the event must take its transaction id or preimage from the stored order. */
export function eventNeedsStoredOrder(transition: StateTransition): boolean {
  const transactionType = TRANSACTION_TYPE_SHOWN[transition.to];
  if (transactionType !== undefined) return transition.transaction?.type !== transactionType;
  return transition.to === 'Complete' && transition.paymentPreimage === undefined;
}

/** Builds the event of a transition that was just stored; `order` is the order as read after the move. */
export function stateChangedEvent(transition: StateTransition, order?: OrderRecord): StateChangedEvent {
  const event = { orderId: transition.orderId, state: transition.to };
  const transactionType = TRANSACTION_TYPE_SHOWN[transition.to];
  if (transactionType !== undefined) {
    const transactionId =
      transition.transaction?.type === transactionType
        ? transition.transaction.id
        : latestTransactionId(order, transactionType);
    return transactionId === undefined ? event : { ...event, transactionId };
  }
  if (transition.to === 'Complete') {
    const preimage = transition.paymentPreimage ?? order?.paymentPreimage;
    return preimage === undefined ? event : { ...event, preimage };
  }
  return event;
}

function latestTransactionId(order: OrderRecord | undefined, type: TransactionType): string | undefined {
  const ofType = order?.transactions.filter((transaction) => transaction.type === type) ?? [];
  return ofType[ofType.length - 1]?.id;
}

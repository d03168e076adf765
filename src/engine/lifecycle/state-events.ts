import type { OrderRecord, TransactionType } from '../../domain/order.js';
import type { OrderState } from '../../domain/states.js';
import type { OrderReadStore, SequencedStateChange, StateTransition } from '../../store/store.js';

/** The `stateChanged` payload users receive while subscribed to an order. */
export interface StateChangedEvent {
  readonly orderId: string;
  readonly state: OrderState;
  /** The number of the history row of this state: per order, from 1, one more per move. */
  readonly sequence: number;
  /**
   * The transaction that caused the move: the FUND transaction on WaitingForFundingTxConfirmation,
   * WaitingForAdditionalFundingTxConfirmation, PartiallyFunded and Funded, the REFUND transaction on
   * WaitingForRefundTxConfirmation and Refunded.
   */
  readonly transactionId?: string;
  /** On Complete. */
  readonly preimage?: string;
  /**
   * On WaitingForRefundTx: why the order waits for its refund, the reason of the move's cause. `providerAuthorizedRefund`
   * says the winning provider signed the refund away: the refund details answer `CooperativeRefund`, to send now.
   */
  readonly reason?: string;
}

const TRANSACTION_TYPE_SHOWN: Partial<Record<OrderState, TransactionType>> = {
  WaitingForFundingTxConfirmation: 'FUND',
  WaitingForAdditionalFundingTxConfirmation: 'FUND',
  PartiallyFunded: 'FUND',
  Funded: 'FUND',
  WaitingForRefundTxConfirmation: 'REFUND',
  Refunded: 'REFUND',
};

/** True when the event must take its transaction id or preimage from the stored order. */
export function eventNeedsStoredOrder(transition: StateTransition): boolean {
  const transactionType = TRANSACTION_TYPE_SHOWN[transition.to];
  if (transactionType !== undefined) return transition.transaction?.type !== transactionType;
  return transition.to === 'Complete' && transition.paymentPreimage === undefined;
}

/**
 * Builds the event of a transition that was just stored as history row `sequence`; `order` is the order as read
 * after the move.
 */
export function stateChangedEvent(
  transition: StateTransition,
  sequence: number,
  order?: OrderRecord,
): StateChangedEvent {
  const event = { orderId: transition.orderId, state: transition.to, sequence };
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
  return transition.to === 'WaitingForRefundTx' ? { ...event, reason: transition.cause.reason } : event;
}

/**
 * The event a stored history row stands for, to send again to a subscriber that missed it. Its transaction is the
 * order's latest of the shown type, as a live event of a move that did not name one carries.
 */
export function replayedStateChangedEvent(order: OrderRecord, change: SequencedStateChange): StateChangedEvent {
  const event = { orderId: order.id, state: change.state, sequence: change.sequence };
  const transactionType = TRANSACTION_TYPE_SHOWN[change.state];
  if (transactionType !== undefined) {
    const transactionId = latestTransactionId(order, transactionType);
    return transactionId === undefined ? event : { ...event, transactionId };
  }
  if (change.state === 'Complete' && order.paymentPreimage !== undefined) {
    return { ...event, preimage: order.paymentPreimage };
  }
  // A history row an import wrote, or one older than causes, has no reason to tell.
  return change.state === 'WaitingForRefundTx' && change.cause !== undefined
    ? { ...event, reason: change.cause.reason }
    : event;
}

function latestTransactionId(order: OrderRecord | undefined, type: TransactionType): string | undefined {
  const ofType = order?.transactions.filter((transaction) => transaction.type === type) ?? [];
  return ofType[ofType.length - 1]?.id;
}

/** The events of an order's stored history after `afterSequence`, for subscribers that missed them. */
export async function storedStateChangedEvents(
  store: OrderReadStore,
  orderId: string,
  afterSequence: number,
): Promise<StateChangedEvent[]> {
  const changes = await store.getOrderHistorySince(orderId, afterSequence);
  if (changes.length === 0) return [];
  const order = await store.getOrder(orderId);
  return order === undefined ? [] : changes.map((change) => replayedStateChangedEvent(order, change));
}

/**
 * The order state machine: every state a user can see and the moves allowed between them.
 * Orders keep an append-only history of the states they passed through.
 */
export const ORDER_STATES = [
  'WaitingForFundingTx',
  'WaitingForFundingTxConfirmation',
  'WaitingForAdditionalFundingTxConfirmation',
  'PartiallyFunded',
  'Funded',
  'Complete',
  'WaitingForRefundTx',
  'AddressBlacklistedWaitingForRefundTx',
  'WaitingForRefundTxConfirmation',
  'Refunded',
  'FundWindowElapsed',
] as const;

export type OrderState = (typeof ORDER_STATES)[number];

/** The state a quoted order starts in. */
export const INITIAL_ORDER_STATE: OrderState = 'WaitingForFundingTx';

const ALLOWED_TRANSITIONS: Readonly<Record<OrderState, readonly OrderState[]>> = {
  WaitingForFundingTx: [
    'WaitingForFundingTxConfirmation',
    'PartiallyFunded',
    'FundWindowElapsed',
    'AddressBlacklistedWaitingForRefundTx',
  ],
  WaitingForFundingTxConfirmation: [
    'Funded',
    'PartiallyFunded',
    'WaitingForFundingTx',
    'AddressBlacklistedWaitingForRefundTx',
  ],
  WaitingForAdditionalFundingTxConfirmation: ['Funded', 'PartiallyFunded', 'AddressBlacklistedWaitingForRefundTx'],
  PartiallyFunded: [
    'WaitingForAdditionalFundingTxConfirmation',
    'WaitingForRefundTx',
    'AddressBlacklistedWaitingForRefundTx',
    // A reorg took its only confirmed funding out of the chain (docs/chain-watcher.md).
    'WaitingForFundingTx',
  ],
  // The provider refuses to pay for funds from a blacklisted address: the operator refunds them.
  // Back to PartiallyFunded or WaitingForFundingTx: a reorg took confirmed funding out of the chain.
  Funded: [
    'Complete',
    'WaitingForRefundTx',
    'AddressBlacklistedWaitingForRefundTx',
    'PartiallyFunded',
    'WaitingForFundingTx',
  ],
  Complete: [],
  WaitingForRefundTx: ['WaitingForRefundTxConfirmation'],
  AddressBlacklistedWaitingForRefundTx: ['WaitingForRefundTxConfirmation'],
  WaitingForRefundTxConfirmation: ['Refunded', 'WaitingForRefundTx'],
  Refunded: [],
  // Funds that arrive after the window closed are never swapped, only given back.
  FundWindowElapsed: ['WaitingForRefundTx'],
};

export interface StateMove {
  readonly from: OrderState;
  readonly to: OrderState;
}

/** Every allowed move, in the order of the table above. */
export const ALLOWED_MOVES: readonly StateMove[] = ORDER_STATES.flatMap((from) =>
  ALLOWED_TRANSITIONS[from].map((to) => ({ from, to })),
);

const stateSet: ReadonlySet<string> = new Set(ORDER_STATES);

export function isOrderState(value: string): value is OrderState {
  return stateSet.has(value);
}

export function canTransition(from: OrderState, to: OrderState): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

/** A final order never changes again, so anything derived from it can be cached for good. */
export function isFinalState(state: OrderState): boolean {
  return ALLOWED_TRANSITIONS[state].length === 0;
}

/**
 * The states in which an order may still be funded or paid out: at most one order per payment hash may be in
 * one of them, since two HTLCs locked to one payment hash let the second be claimed with the first's preimage.
 * The migrations (store/migrations/live-orders.ts) froze this list into a unique index; the operator's in-flight
 * limit (`maxSwapsInFlight`) counts orders in these states.
 */
export const LIVE_ORDER_STATES = [
  'WaitingForFundingTx',
  'WaitingForFundingTxConfirmation',
  'WaitingForAdditionalFundingTxConfirmation',
  'PartiallyFunded',
  'Funded',
] as const;

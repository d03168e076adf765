/**
 * The provider's lifecycle of one order it quoted, as its own records tell it: the quote (won, closed), the
 * payment (paying, succeeded, failed, suspect), the claim (pending, broadcast, confirmed, lost) and the cooperative
 * refunds it signed away (reported or not). The daemon
 * writes only those rows; `orderLifecycle` reads the one state they mean, and the loop acts on that state.
 */
import type { ClaimRecord, PaymentRecord, QuoteRecord, RefundSignatureRecord } from '../state/provider-state.js';

export const ORDER_LIFECYCLE_STATES = [
  'quoted',
  'lost',
  'won',
  'unpaid',
  'mismatch',
  'paying',
  'suspect',
  'failed',
  'refund-signed',
  'paid',
  'claim-broadcast',
  'claimed',
  'claim-lost',
] as const;

export type OrderLifecycleState = (typeof ORDER_LIFECYCLE_STATES)[number];

/** What each state means, as docs/provider-lifecycle.md tells it. */
export const LIFECYCLE_STATE_MEANINGS: Readonly<Record<OrderLifecycleState, string>> = {
  quoted: 'Quoted; the auction is not decided yet.',
  lost: "Another provider's quote was taken, the quote was refused, or the order never appeared.",
  won: "The service's funding details are this provider's quote; nothing paid yet.",
  unpaid: 'Closed without paying: the money rules refused for good, or the order ended before it was `Funded`.',
  mismatch: "The service answered terms other than the quote's: the payment hash is written down failed, never paid.",
  paying: "The invoice's payment was sent and its outcome is not known yet.",
  suspect: 'The node reported the payment in a state the daemon cannot trust: the operator resolves it.',
  failed: 'The payment failed: the user refunds at the timelock, or at once once the refund is signed.',
  'refund-signed':
    'The provider will never pay: it signed the cooperative refund of each slot naming it (third swap contract), ' +
    'written down before sent; the payment hash is never paid, and the signatures are sent until the service acknowledges them.',
  paid: 'The payment succeeded: the preimage is known and the claim is yet to be broadcast.',
  'claim-broadcast': 'The claim transaction is on its way; the claim watch confirms it or raises its fee.',
  claimed: "The claim is confirmed: the order's funds are the provider's.",
  'claim-lost': 'The user refunded before any claim landed, after the invoice was paid.',
};

/** The first state of every order the provider follows. */
export const INITIAL_LIFECYCLE_STATE: OrderLifecycleState = 'quoted';

const LIFECYCLE_TRANSITIONS: Readonly<Record<OrderLifecycleState, readonly OrderLifecycleState[]>> = {
  quoted: ['won', 'lost', 'mismatch'],
  lost: [],
  // A refund is signed only with no payment of the hash, or after one failed: never while one is in flight.
  won: ['paying', 'unpaid', 'mismatch', 'refund-signed'],
  unpaid: [],
  mismatch: ['refund-signed'],
  paying: ['paid', 'failed', 'suspect'],
  suspect: [],
  failed: ['refund-signed'],
  'refund-signed': [],
  // A Bitcoin claim not yet broadcast is lost when the user refunds first.
  paid: ['claim-broadcast', 'claim-lost'],
  'claim-broadcast': ['claimed', 'claim-lost'],
  claimed: [],
  'claim-lost': [],
};

export interface LifecycleMove {
  readonly from: OrderLifecycleState;
  readonly to: OrderLifecycleState;
}

/** Every move of the lifecycle, in the order of the table above. */
export const LIFECYCLE_MOVES: readonly LifecycleMove[] = ORDER_LIFECYCLE_STATES.flatMap((from) =>
  LIFECYCLE_TRANSITIONS[from].map((to) => ({ from, to })),
);

export function canMoveLifecycle(from: OrderLifecycleState, to: OrderLifecycleState): boolean {
  return LIFECYCLE_TRANSITIONS[from].includes(to);
}

/** A final state: the daemon does nothing more for the order (a suspect payment waits for the operator). */
export function isFinalLifecycleState(state: OrderLifecycleState): boolean {
  return LIFECYCLE_TRANSITIONS[state].length === 0;
}

/** One order's records, as the state file holds them. */
export interface OrderRecords {
  quote: QuoteRecord;
  payment: PaymentRecord | undefined;
  claim: ClaimRecord | undefined;
  /** The cooperative refunds signed for the order's slots; none when absent. */
  refunds?: readonly RefundSignatureRecord[];
}

/** Where one order stands, read from its records. */
export interface OrderStanding {
  state: OrderLifecycleState;
  /**
   * A payment outcome or signed refund the service has not acknowledged yet: the order stays followed until it has.
   */
  reportOwed: boolean;
}

/**
 * The lifecycle state the records mean. The furthest record speaks: a claim over its payment, a payment over
 * its quote; a suspect payment over everything, since nothing else is done for it.
 */
export function orderLifecycle({ quote, payment, claim, refunds = [] }: OrderRecords): OrderStanding {
  const reportOwed =
    (payment !== undefined && (payment.state === 'paying' || !payment.reported)) ||
    refunds.some((refund) => !refund.reported);
  return { state: lifecycleState(quote, payment, claim, refunds.length > 0), reportOwed };
}

function lifecycleState(
  quote: QuoteRecord,
  payment: PaymentRecord | undefined,
  claim: ClaimRecord | undefined,
  refundSigned: boolean,
): OrderLifecycleState {
  if (payment?.state === 'suspect') return 'suspect';
  // Signed only with no payment under way, and no payment begun after: nothing further can have happened.
  if (refundSigned) return 'refund-signed';
  switch (claim?.state) {
    case 'confirmed':
      return 'claimed';
    case 'lost':
      return 'claim-lost';
    case 'broadcast':
      return 'claim-broadcast';
    case 'pending':
      return 'paid';
    case undefined:
      break;
  }
  switch (payment?.state) {
    case 'paying':
      return 'paying';
    case 'succeeded':
      return 'paid';
    case 'failed':
      return payment.failureReason === 'service-mismatch' ? 'mismatch' : 'failed';
    case undefined:
      break;
  }
  if (quote.won) return quote.closed ? 'unpaid' : 'won';
  return quote.closed ? 'lost' : 'quoted';
}

import type { PaymentFailureReason } from '../../chains/lightning/lightning-backend.js';
import type { PaymentDecision } from './payment-decision.js';

/** The `paymentResult` message of `/provider/v1` (docs/websocket.md). */
export type PaymentResultMessage =
  { orderId: string; success: true; preimage: string } | { orderId: string; success: false; failedReason: string };

/** The `failedReason` words, in the PascalCase of REDSHIFT's PaymentFailedReason. */
const NODE_FAILURE_WORDS: Readonly<Record<PaymentFailureReason, string>> = {
  'no-route': 'NoRoute',
  'insufficient-balance': 'InsufficientBalance',
  timeout: 'PaymentTimeout',
  'incorrect-payment-details': 'IncorrectPaymentDetails',
  'invoice-expired': 'InvoiceExpired',
  'fee-limit-exceeded': 'FeeLimitExceeded',
  error: 'PaymentFailed',
};

type RefusalReason = Extract<PaymentDecision, { final: true }>['reason'];

/** Why the provider will never pay; 'already-begun' is no refusal: that payment's own outcome is reported. */
const REFUSAL_WORDS: Readonly<Record<Exclude<RefusalReason, 'already-begun'>, string>> = {
  underfunded: 'Underfunded',
  'refund-height-too-close': 'RefundHeightTooClose',
  'invoice-expired': 'InvoiceExpired',
};

/**
 * What to tell the service about a payment: the preimage on success, the reason on failure, and
 * nothing while it is in flight (a failure reported then could be followed by a success).
 */
export function paymentResultFor(
  orderId: string,
  payment: { state: 'paying' | 'succeeded' | 'failed'; preimage?: string; failureReason?: PaymentFailureReason },
): PaymentResultMessage | undefined {
  switch (payment.state) {
    case 'paying':
      return undefined;
    case 'succeeded':
      if (payment.preimage === undefined) throw new Error('a succeeded payment without its preimage');
      return { orderId, success: true, preimage: payment.preimage };
    case 'failed':
      return { orderId, success: false, failedReason: NODE_FAILURE_WORDS[payment.failureReason ?? 'error'] };
  }
}

/** The failure to report when the provider decides never to pay an order it won. */
export function refusalResultFor(orderId: string, reason: RefusalReason): PaymentResultMessage | undefined {
  if (reason === 'already-begun') return undefined;
  return { orderId, success: false, failedReason: REFUSAL_WORDS[reason] };
}

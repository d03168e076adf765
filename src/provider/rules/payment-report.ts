import type { RecordedFailureReason } from '../state/provider-state.js';
import type { PaymentDecision } from './payment-decision.js';

/** The `paymentResult` message of `/provider/v1` (docs/websocket.md). */
export type PaymentResultMessage =
  { orderId: string; success: true; preimage: string } | { orderId: string; success: false; failedReason: string };

/**
 * The service takes REDSHIFT's PaymentFailedReason words only, and of them `AddressBlacklisted`
 * moves the order to the operator's refund: every failure of the provider's own is `PaymentFailed`.
 * The node's reason stays in the provider's state and log.
 */
export const PAYMENT_FAILED = 'PaymentFailed';

/**
 * What to tell the service about a payment: the preimage on success, a failure once it failed for
 * good, and nothing while it is in flight (a failure reported then could be followed by a success)
 * or suspect (money may have gone out, and there is no preimage to give).
 */
export function paymentResultFor(
  orderId: string,
  payment: {
    state: 'paying' | 'succeeded' | 'failed' | 'suspect';
    preimage?: string;
    failureReason?: RecordedFailureReason;
  },
): PaymentResultMessage | undefined {
  switch (payment.state) {
    case 'paying':
    case 'suspect':
      return undefined;
    case 'succeeded':
      if (payment.preimage === undefined) throw new Error('a succeeded payment without its preimage');
      return { orderId, success: true, preimage: payment.preimage };
    case 'failed':
      return { orderId, success: false, failedReason: PAYMENT_FAILED };
  }
}

type RefusalReason = Extract<PaymentDecision, { final: true }>['reason'];

/**
 * The failure to report when the provider decides never to pay an order it won; none for a payment
 * begun before, whose own outcome is reported.
 */
export function refusalResultFor(orderId: string, reason: RefusalReason): PaymentResultMessage | undefined {
  if (reason === 'already-begun') return undefined;
  return { orderId, success: false, failedReason: PAYMENT_FAILED };
}

import type { AckView } from '../../client/views.js';
import { paymentResultFor, type PaymentResultMessage } from '../rules/payment-report.js';
import type { ProviderState } from '../state/provider-state.js';

/** The service's acknowledgement, read against the shape it writes (`readAck`). */
export type ServiceAck = AckView;

export type SendPaymentResult = (message: PaymentResultMessage) => Promise<ServiceAck>;

/**
 * Refusals that sending again cannot change (docs/websocket.md): the order is gone, no longer
 * `Funded`, not this provider's, or the message is not one the service takes. Anything else (`InternalServerError`, no
 * answer) is sent again on the next round.
 */
const FINAL_REFUSALS: ReadonlySet<string> = new Set([
  'OrderNotFound',
  'OrderNotFunded',
  'OrderNotWonByProvider',
  'InvalidOrderId',
  'InvalidFailedReason',
  'InvalidPreimage',
  'InvalidOrMissingQuoteFields',
]);

export interface ReportRound {
  /** Payment hashes whose outcome the service took, or refused for good. */
  settled: string[];
  /** Payment hashes to send again. */
  retry: string[];
}

/**
 * Sends every resolved payment's `paymentResult` the service has not acknowledged yet, and marks
 * each one it answered for good, so a restart sends only what is still owed. The preimage goes out
 * as soon as the payment succeeded: the service completes the order with it.
 */
export async function reportOutcomes(state: ProviderState, send: SendPaymentResult): Promise<ReportRound> {
  const round: ReportRound = { settled: [], retry: [] };
  for (const payment of state.unreportedPayments()) {
    const message = paymentResultFor(payment.orderId, payment);
    if (message === undefined) continue;
    let ack: ServiceAck;
    try {
      ack = await send(message);
    } catch {
      round.retry.push(payment.paymentHash);
      continue;
    }
    if (ack.success || FINAL_REFUSALS.has(ack.message)) {
      state.markReported(payment.paymentHash);
      round.settled.push(payment.paymentHash);
    } else {
      round.retry.push(payment.paymentHash);
    }
  }
  return round;
}

import type { AckView } from '../../client/views.js';
import type { ProviderState } from '../state/provider-state.js';

/** The `refundAuthorization` message of `/provider/v1` (docs/websocket.md): an order's signed cooperative refunds. */
export interface RefundAuthorizationMessage {
  orderId: string;
  refunds: { funder: string; signature: string }[];
}

export type SendRefundAuthorization = (message: RefundAuthorizationMessage) => Promise<AckView>;

/**
 * Refusals that sending again cannot change (docs/websocket.md): the order is gone or not this provider's, its
 * contract takes no cooperative refund, or the service does not take the signatures. Anything else
 * (`InternalServerError`, `ServiceUnavailable`, no answer) is sent again on the next round.
 */
const FINAL_REFUSALS: ReadonlySet<string> = new Set([
  'OrderNotFound',
  'OrderNotWonByProvider',
  'ContractHasNoCooperativeRefund',
  'InvalidRefundSignature',
  'InvalidOrMissingRefundAuthorizationFields',
  'InvalidOrderId',
]);

/** Order ids whose signed refunds the service took (or refused for good), and those to send again. */
export interface RefundReportRound {
  settled: string[];
  retry: string[];
}

/**
 * Sends each order's signed refunds the service has not acknowledged yet, one `refundAuthorization` per order, and
 * marks those it answered for good, so a restart sends only what is still owed. Every signature read here was
 * written down before: none leaves the daemon otherwise.
 */
export async function reportRefundAuthorizations(
  state: ProviderState,
  send: SendRefundAuthorization,
): Promise<RefundReportRound> {
  const round: RefundReportRound = { settled: [], retry: [] };
  const byOrder = new Map<string, RefundAuthorizationMessage['refunds']>();
  for (const { orderId, funder, signature } of state.unreportedRefundSignatures()) {
    byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), { funder, signature }]);
  }
  for (const [orderId, refunds] of byOrder) {
    let ack: AckView;
    try {
      ack = await send({ orderId, refunds });
    } catch {
      round.retry.push(orderId);
      continue;
    }
    if (ack.success || FINAL_REFUSALS.has(ack.message)) {
      state.markRefundSignaturesReported(orderId);
      round.settled.push(orderId);
    } else {
      round.retry.push(orderId);
    }
  }
  return round;
}

import { LnswapError } from '../domain/errors.js';
import { preimageMatchesPaymentHash } from '../domain/invoice.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import type { Store } from '../store/store.js';
import type { OrderTransitions } from './order-transitions.js';
import { isPlainObject } from './payload-shapes.js';

export interface PaymentResult {
  readonly orderId: string;
  readonly success: boolean;
  readonly failedReason?: string;
  readonly preimage?: string;
}

/** Reads `{ orderId, success, failedReason?, preimage? }`; throws LnswapError. */
export function readPaymentResult(payload: unknown): PaymentResult {
  if (!isPlainObject(payload)) throw new LnswapError('InvalidOrMissingQuoteFields');
  const { orderId, success, failedReason, preimage } = payload;
  if (typeof orderId !== 'string') throw new LnswapError('InvalidOrMissingQuoteFields');
  const normalizedId = normalizeOrderId(orderId);
  if (normalizedId === undefined) throw new LnswapError('InvalidOrderId');
  if (
    typeof success !== 'boolean' ||
    (failedReason !== undefined && failedReason !== null && typeof failedReason !== 'string') ||
    (preimage !== undefined && preimage !== null && typeof preimage !== 'string')
  ) {
    throw new LnswapError('InvalidOrMissingQuoteFields');
  }
  return {
    orderId: normalizedId,
    success,
    ...(typeof failedReason === 'string' ? { failedReason } : {}),
    ...(typeof preimage === 'string' ? { preimage } : {}),
  };
}

/**
 * A successful payment completes a funded order; its preimage is the proof that the invoice was
 * paid, so it must hash to the order's payment hash. A reported failure changes nothing: the claim
 * cannot be checked, and the user's way back, the timelock refund, opens regardless.
 * Repeating the result of a completed order is accepted. `requestId` names the provider's request in the
 * order's history. Throws LnswapError.
 */
export async function applyPaymentResult(
  result: PaymentResult,
  store: Store,
  transitions: OrderTransitions,
  now: number,
  requestId?: string,
): Promise<void> {
  const order = await store.getOrder(result.orderId);
  if (order === undefined) throw new LnswapError('OrderNotFound');
  if (!result.success) return;

  const preimage = result.preimage?.toLowerCase();
  if (preimage === undefined || !preimageMatchesPaymentHash(preimage, order.paymentHash)) {
    throw new LnswapError('InvalidPreimage');
  }
  if (order.state === 'Complete') return;
  if (order.state !== 'Funded') throw new LnswapError('OrderNotFunded');

  const completed = await transitions.apply({
    orderId: order.id,
    from: 'Funded',
    to: 'Complete',
    at: now,
    paymentPreimage: preimage,
    cause: { source: 'request', reason: 'paymentResult', ...(requestId === undefined ? {} : { requestId }) },
  });
  if (completed) return;
  const current = await store.getOrder(order.id);
  if (current?.state !== 'Complete') throw new LnswapError('OrderNotFunded');
}

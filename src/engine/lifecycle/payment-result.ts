import { LnswapError } from '../../domain/errors.js';
import { preimageMatchesPaymentHash } from '../../domain/invoice.js';
import { normalizeOrderId } from '../../domain/order-ids.js';
import type { OrderRecord } from '../../domain/order.js';
import type { OrderState } from '../../domain/states.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
import type { OrderReadStore, StateTransition } from '../../store/store.js';
import type { OrderTransitions } from './order-transitions.js';
import { paymentResultShape } from '../../wire/socket-payloads.js';
import { payloadReader } from './payload-shapes.js';

export interface PaymentResult {
  readonly orderId: string;
  readonly success: boolean;
  readonly failedReason?: string;
  readonly preimage?: string;
}

/** The `failedReason` by which a provider says it will not pay because the funding address is blacklisted. */
export const ADDRESS_BLACKLISTED = 'AddressBlacklisted';

/**
 * REDSHIFT's `PaymentFailedReason` values (`@radar/redshift-types`): a blacklisted sender, or any other failure to
 * pay. Nothing else is taken, so what reaches the log is one of these words, never a provider's free text.
 */
export const PAYMENT_FAILED_REASONS: ReadonlySet<string> = new Set([ADDRESS_BLACKLISTED, 'PaymentFailed']);

/** Longer than any known reason; refused before the set is consulted. */
const MAX_FAILED_REASON_LENGTH = 64;

const readFields = payloadReader<{
  orderId: string;
  success: boolean;
  failedReason?: string | null;
  preimage?: string | null;
}>(paymentResultShape);

/** Reads `{ orderId, success, failedReason?, preimage? }`; throws LnswapError. */
export function readPaymentResult(payload: unknown): PaymentResult {
  const { orderId, success, failedReason, preimage } = readFields(payload);
  const normalizedId = normalizeOrderId(orderId);
  if (normalizedId === undefined) throw new LnswapError('InvalidOrderId');
  if (
    typeof failedReason === 'string' &&
    (failedReason.length > MAX_FAILED_REASON_LENGTH || !PAYMENT_FAILED_REASONS.has(failedReason))
  ) {
    throw new LnswapError('InvalidFailedReason');
  }
  return {
    orderId: normalizedId,
    success,
    ...(typeof failedReason === 'string' ? { failedReason } : {}),
    ...(typeof preimage === 'string' ? { preimage } : {}),
  };
}

/**
 * Only the provider whose quote won the order (`order.providerId`) may report on it: another provider's report,
 * above all an `AddressBlacklisted` that takes the user's timelock refund away, is refused with
 * OrderNotWonByProvider. An order without a provider (imported from a snapshot that names none) takes a success
 * from any provider, since a preimage that hashes to the payment hash proves the payment whoever shows it, and
 * refuses every failure, which nothing could check.
 *
 * A successful payment completes a funded order; its preimage is the proof that the invoice was
 * paid, so it must hash to the order's payment hash. A provider that will not pay because the
 * funding address is blacklisted (`failedReason: "AddressBlacklisted"`) moves a funded order to
 * `AddressBlacklistedWaitingForRefundTx`, where the operator refunds it. Any other reported failure
 * changes nothing: it cannot be checked, and the user's way back, the timelock refund, opens
 * regardless. Repeating a result already applied is accepted. Throws LnswapError.
 */
export async function applyPaymentResult(
  result: PaymentResult,
  store: OrderReadStore,
  transitions: OrderTransitions,
  now: number,
  providerId: string,
  requestId?: string,
): Promise<void> {
  const order = await store.getOrder(result.orderId);
  if (order === undefined) throw new LnswapError('OrderNotFound');
  const wonByProvider = order.providerId === undefined ? result.success : order.providerId === providerId;
  if (!wonByProvider) throw new LnswapError('OrderNotWonByProvider');
  if (!result.success) {
    if (result.failedReason === ADDRESS_BLACKLISTED)
      await holdForAdminRefund(order, transitions, store, now, requestId);
    return;
  }

  const preimage = result.preimage?.toLowerCase();
  if (preimage === undefined || !preimageMatchesPaymentHash(preimage, order.paymentHash)) {
    throw new LnswapError('InvalidPreimage');
  }
  const cause: TransitionCause = {
    source: 'request',
    reason: 'paymentResult',
    ...(requestId === undefined ? {} : { requestId }),
  };
  await moveFunded(order, 'Complete', transitions, store, { at: now, paymentPreimage: preimage, cause });
}

async function holdForAdminRefund(
  order: OrderRecord,
  transitions: OrderTransitions,
  store: OrderReadStore,
  now: number,
  requestId: string | undefined,
): Promise<void> {
  const cause: TransitionCause = {
    source: 'request',
    reason: 'paymentFailedAddressBlacklisted',
    ...(requestId === undefined ? {} : { requestId }),
  };
  await moveFunded(order, 'AddressBlacklistedWaitingForRefundTx', transitions, store, { at: now, cause });
}

/** Moves a Funded order to `to`, compare-and-set; accepted when it is already there. Throws OrderNotFunded. */
async function moveFunded(
  order: OrderRecord,
  to: OrderState,
  transitions: OrderTransitions,
  store: OrderReadStore,
  details: Pick<StateTransition, 'at' | 'paymentPreimage' | 'cause'>,
): Promise<void> {
  if (order.state === to) return;
  if (order.state !== 'Funded') throw new LnswapError('OrderNotFunded');
  if (await transitions.apply({ orderId: order.id, from: 'Funded', to, ...details })) return;
  const current = await store.getOrder(order.id);
  if (current?.state !== to) throw new LnswapError('OrderNotFunded');
}

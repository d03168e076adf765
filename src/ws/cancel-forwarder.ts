import type { Namespace } from 'socket.io';
import { LnswapError, type ErrorToken } from '../domain/errors.js';
import { isPlainObject } from '../engine/lifecycle/payload-shapes.js';
import type { CheckedCancel } from '../engine/lifecycle/cancel-request.js';
import { providerRoom } from './rooms.js';

/** What a provider may answer a `cancelOrder` with, besides success; anything else reads as no answer. */
const PROVIDER_REFUSALS: ReadonlySet<string> = new Set<ErrorToken>([
  'PaymentInProgress',
  'NothingToRefund',
  'OrderNotWonByProvider',
]);

/**
 * Asks the order's winning provider, on whichever instance its connections are (the cluster adapter carries the
 * broadcast and its acks), to give the order up: `cancelOrder { orderId, funder }`. Resolves once one connection
 * answered success, which the provider sends only after the service took its signed refunds; throws the
 * provider's refusal (`PaymentInProgress`, `NothingToRefund`), or `ProviderUnreachable` when no connection of it
 * answered in time.
 */
export async function forwardCancel(providers: Namespace, cancel: CheckedCancel, timeoutMs: number): Promise<void> {
  let answers: unknown[];
  try {
    answers = (await providers
      .to(providerRoom(cancel.providerId))
      .timeout(timeoutMs)
      .emitWithAck('cancelOrder', { orderId: cancel.orderId, funder: cancel.funder })) as unknown[];
  } catch {
    throw new LnswapError('ProviderUnreachable');
  }
  const acks = answers.filter(isPlainObject);
  if (acks.some((ack) => ack.success === true)) return;
  const refusal = acks.map((ack) => ack.message).find((message) => PROVIDER_REFUSALS.has(String(message)));
  throw new LnswapError(refusal === undefined ? 'ProviderUnreachable' : (refusal as ErrorToken));
}

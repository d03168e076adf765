import type { TransitionCause } from './transition-cause.js';

/**
 * One line saying why an order moved, for people reading its history: the source and reason, then
 * whatever the cause names (chain, transaction, block, request), each value whole so it can be searched for.
 */
export function describeCause(cause: TransitionCause | undefined): string {
  if (cause === undefined) return 'no cause recorded (imported from a snapshot, or older than causes)';
  const details = [
    cause.chain,
    cause.txId === undefined ? undefined : `tx ${cause.txId}`,
    cause.blockHeight === undefined ? undefined : `block ${cause.blockHeight}`,
    cause.blockHash === undefined ? undefined : `hash ${cause.blockHash}`,
    cause.requestId === undefined ? undefined : `request ${cause.requestId}`,
  ].filter((detail) => detail !== undefined);
  const summary = `${cause.source} ${cause.reason}`;
  return details.length === 0 ? summary : `${summary}: ${details.join(' ')}`;
}

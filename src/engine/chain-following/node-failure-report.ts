import { isMisbehaviour, nodeCallFailureIn } from '../../chains/node-faults.js';
import type { ChainKind } from '../../domain/markets.js';

/**
 * What the log says of a failed call: a node's failure as its fault and its one bounded line (where in lnswap it
 * was noticed says nothing an operator can act on, and the node, not lnswap, is at fault); any other error whole,
 * stack and all, since that one is lnswap's bug or its store failing.
 */
export function failureFields(error: unknown): Record<string, unknown> {
  const failure = nodeCallFailureIn(error);
  if (failure === undefined) return { err: error };
  return { fault: failure.fault, node: failure.node, reason: failure.message };
}

/**
 * The error a service start-up ends with when `chain`'s node failed a call: one line saying how (down or
 * misbehaving), the fault and the call. Any other error is answered unchanged.
 */
export function refusedAtStart(chain: ChainKind, error: unknown): unknown {
  const failure = nodeCallFailureIn(error);
  if (failure === undefined) return error;
  const how = isMisbehaviour(failure.fault) ? 'misbehaving' : 'failing';
  return new Error(`the ${chain} node is ${how} (${failure.fault}): ${failure.message}`, { cause: failure });
}

import type { StateTransition, Store } from '../../src/store/store.js';
import { preciseNow } from './messages.js';

/**
 * A store that notes when each move's commit returned, keyed by order and history sequence: the instant a
 * subscriber's latency is counted from. Everything else passes through untouched.
 */
export function withCommitClock(store: Store): { store: Store; commits: Map<string, number> } {
  const commits = new Map<string, number>();
  const transitionOrder = async (transition: StateTransition): Promise<number | undefined> => {
    const sequence = await store.transitionOrder(transition);
    if (sequence !== undefined) commits.set(`${transition.orderId}:${sequence}`, preciseNow());
    return sequence;
  };
  const clocked = new Proxy(store, {
    get(target, property) {
      if (property === 'transitionOrder') return transitionOrder;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: clocked, commits };
}

import { canTransition } from '../domain/states.js';
import type { StateTransition } from './store.js';

/** The state machine is enforced where state is written, so no caller can store a forbidden move. */
export function assertTransitionAllowed(transition: StateTransition): void {
  if (!canTransition(transition.from, transition.to)) {
    throw new Error(`Order ${transition.orderId} cannot move from ${transition.from} to ${transition.to}`);
  }
}

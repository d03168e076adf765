import type { OrderMoveStore, OrderReadStore, StateTransition } from '../../store/store.js';
import { eventNeedsStoredOrder, stateChangedEvent, type StateChangedEvent } from './state-events.js';

export type StateChangedPublisher = (event: StateChangedEvent) => void;

/**
 * How requests and timers (a provider's paymentResult, the fund-window sweep) move an order:
 * compare-and-set in the store, so of several instances trying the same move only one succeeds, and
 * only that one announces it. Chain watchers move orders otherwise: a whole poll's moves in one
 * `applyChainStep` transaction, announced through this class's `publish`.
 */
export class OrderTransitions {
  constructor(
    private readonly store: OrderMoveStore & OrderReadStore,
    /** Tells the users following an order; for moves stored by other means (the chain watcher's steps). */
    readonly publish: StateChangedPublisher,
  ) {}

  /** Resolves false when the order was no longer in `transition.from`. */
  async apply(transition: StateTransition): Promise<boolean> {
    const sequence = await this.store.transitionOrder(transition);
    if (sequence === undefined) return false;
    const order = eventNeedsStoredOrder(transition) ? await this.store.getOrder(transition.orderId) : undefined;
    this.publish(stateChangedEvent(transition, sequence, order));
    return true;
  }
}

/**
 * What committed writes changed, for the caches in front of the store: every write that can
 * change what a read returns, except provider credentials, which nothing caches.
 */
export type StoreChange =
  | { readonly kind: 'configuration' }
  | { readonly kind: 'orderCreated'; readonly invoiceHash: string }
  /** A new state, and with it maybe a transaction or the preimage. */
  | { readonly kind: 'orderMoved'; readonly orderId: string }
  /** An import, a commit by another process the store cannot itemize, or a gap in the notifications. */
  | { readonly kind: 'anything' };

export type StoreChangeListener = (change: StoreChange) => void;

export interface ChangeFeed {
  /** Calls `listener` after each reported change commits; returns the function that stops it. */
  subscribe(listener: StoreChangeListener): () => void;
  /**
   * Reports, before returning, whatever other processes committed that the store can learn of
   * synchronously, and says whether the feed vouches for cached reads right now (false while the
   * store cannot hear other processes' writes; caches must then read through).
   */
  isCurrent(): boolean;
}

/** The listener bookkeeping every store's feed shares. */
export class ChangeListeners {
  private readonly listeners = new Set<StoreChangeListener>();

  get size(): number {
    return this.listeners.size;
  }

  add(listener: StoreChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

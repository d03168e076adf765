import type { SnapshotStore } from '../store.js';
import type { Guard } from '../guard.js';

/** The stream is not guarded: its reads happen as it is iterated, after this call has returned. */
export function guardSnapshots(inner: SnapshotStore, guard: Guard): SnapshotStore {
  return {
    importAtomically: (work, options) => guard(() => inner.importAtomically(work, options)),
    streamOrders: (batchSize) => inner.streamOrders(batchSize),
  };
}

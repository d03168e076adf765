import type { StoreOutage } from './availability.js';
import { guardChainWatch } from './guard/chain-watch.js';
import { guardConfigurationReads } from './guard/configuration-reads.js';
import { guardFor } from './guard.js';
import { guardOrderMoves } from './guard/order-moves.js';
import { guardOrderReads } from './guard/order-reads.js';
import { guardProviders } from './guard/providers.js';
import { guardRateLimits } from './guard/rate-limits.js';
import { guardSnapshots } from './guard/snapshots.js';
import { guardTokens } from './guard/tokens.js';
import type { Store } from './store.js';

/**
 * The store as the service uses it: a call that cannot reach the database fails with ServiceUnavailable
 * (and the outage is logged once), any other failure as it was. Each role is guarded in its own file of
 * `guard/`.
 */
export function guardStore(inner: Store, outage: StoreOutage): Store {
  const guard = guardFor(outage);
  return {
    dialect: inner.dialect,
    changes: inner.changes,
    ...guardConfigurationReads(inner, guard),
    ...guardOrderReads(inner, guard),
    ...guardOrderMoves(inner, guard),
    ...guardChainWatch(inner, guard),
    ...guardProviders(inner, guard),
    ...guardTokens(inner, guard),
    ...guardRateLimits(inner, guard),
    ...guardSnapshots(inner, guard),
    close: () => inner.close(),
  };
}

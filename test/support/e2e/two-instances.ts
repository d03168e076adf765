import type { RunningService } from '../../../src/service.js';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { configuration } from '../fixtures.js';
import { openFreshStore, type FreshStore } from '../stores.js';
import { startOnStore, type ServiceOverrides } from '../ws/harness.js';

/** Two lnswap instances on one fresh PostgreSQL database, as two processes behind a load balancer run. */
export interface TwoInstances {
  /** The database, and the first instance's connection pool. */
  readonly fresh: FreshStore;
  /** The second instance's own connection pool, as a separate process would have. */
  readonly storeB: Store;
  readonly instanceA: RunningService;
  readonly instanceB: RunningService;
  /** Stops both instances, closes the second pool and drops the database. */
  close(): Promise<void>;
}

/** Configures a fresh database with no providers and starts two instances on it, each with `overrides`. */
export async function startTwoInstances(overrides: ServiceOverrides): Promise<TwoInstances> {
  const fresh = await openFreshStore('postgres');
  let storeB: Store | undefined;
  let instanceA: RunningService | undefined;
  let instanceB: RunningService | undefined;
  const close = async () => {
    await instanceA?.close();
    await instanceB?.close();
    await storeB?.close();
    await fresh.dispose();
  };
  try {
    await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
    storeB = await openStore(fresh.url);
    instanceA = await startOnStore(fresh.store, fresh.url, overrides);
    instanceB = await startOnStore(storeB, fresh.url, overrides);
    return { fresh, storeB, instanceA, instanceB, close };
  } catch (error) {
    await close();
    throw error;
  }
}

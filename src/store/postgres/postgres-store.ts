import type { Store } from '../store.js';
import { changeChannel, PostgresChangeFeed } from './change-feed.js';
import { postgresChainWatch } from './chain-watch.js';
import { postgresConfigurationReads } from './configuration-reads.js';
import { postgresCooperativeRefunds } from './cooperative-refunds.js';
import type { PostgresTarget } from './connection-url.js';
import type { PostgresContext } from './context.js';
import { migratePostgres } from './migrate.js';
import { postgresOrderMoves } from './order-moves.js';
import { postgresOrderReads } from './order-reads.js';
import { createPool } from './pool.js';
import { postgresProviders } from './providers.js';
import { postgresRateLimits } from './rate-limits.js';
import { postgresSnapshots } from './snapshots.js';
import { postgresTokens } from './tokens.js';

/** Connects to the target (creating its schema when named) and migrates it. */
export async function openPostgresStore(target: PostgresTarget): Promise<Store> {
  const pool = createPool(target);
  try {
    await migratePostgres(pool, target.schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return postgresStore({ pool, changes: new PostgresChangeFeed(target, changeChannel(target)) });
}

/** The store on one pool, each role implemented in the file named after it. */
function postgresStore(context: PostgresContext): Store {
  const { pool, changes } = context;
  const configuration = postgresConfigurationReads(context);
  let closing: Promise<void> | undefined;
  return {
    dialect: 'postgres',
    changes,
    ...configuration.reads,
    ...postgresOrderReads(context),
    ...postgresOrderMoves(context),
    ...postgresChainWatch(context),
    ...postgresCooperativeRefunds(context),
    ...postgresProviders(context),
    ...postgresTokens(context),
    ...postgresRateLimits(context),
    ...postgresSnapshots(context),
    close() {
      configuration.stop();
      // Lookups asked before close() send their query in the next turn, which the pool must still take.
      closing ??= changes
        .close()
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => pool.end());
      return closing;
    },
  };
}

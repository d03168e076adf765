import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../store.js';
import { SERVING_CACHE_KIB, setCacheSize } from './bulk-load.js';
import { SqliteChangeFeed } from './change-feed.js';
import { sqliteChainWatch } from './chain-watch.js';
import { sqliteCooperativeRefunds } from './cooperative-refunds.js';
import { sqliteConfigurationReads } from './configuration-reads.js';
import type { SqliteContext } from './context.js';
import { migrateSqlite } from './migrate.js';
import { sqliteOrderMoves } from './order-moves.js';
import { sqliteOrderReads } from './order-reads.js';
import { sqliteProviders } from './providers.js';
import { sqliteRateLimits } from './rate-limits.js';
import { sqliteSnapshots } from './snapshots.js';
import { prepareStatements } from './statements.js';
import { sqliteTokens } from './tokens.js';
import { prepareWrites } from './writes.js';

/** Opens (creating and migrating when new) the SQLite database at `path`, or `:memory:`. */
export function openSqliteStore(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    setCacheSize(db, SERVING_CACHE_KIB);
    migrateSqlite(db);
    return sqliteStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The store on one SQLite connection, each role implemented in the file named after it. */
function sqliteStore(db: Database.Database): Store {
  const statements = prepareStatements(db);
  const context: SqliteContext = {
    db,
    statements,
    writes: prepareWrites(db, statements),
    changes: new SqliteChangeFeed(db),
    runningImport: undefined,
  };
  const configuration = sqliteConfigurationReads(context);
  return {
    dialect: 'sqlite',
    changes: context.changes,
    ...configuration.reads,
    ...sqliteOrderReads(context),
    ...sqliteOrderMoves(context),
    ...sqliteChainWatch(context),
    ...sqliteCooperativeRefunds(context),
    ...sqliteProviders(context),
    ...sqliteTokens(context),
    ...sqliteRateLimits(),
    ...sqliteSnapshots(context),
    async close() {
      configuration.stop();
      // Lookups asked before close() are read in the next turn, on the connection still open.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (db.open) db.close();
    },
  };
}

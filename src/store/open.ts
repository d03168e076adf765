import type { Logger } from 'pino';
import { DEFAULT_LEADERSHIP_OPTIONS, SoleLeadership, type Leadership, type LeadershipOptions } from './leadership.js';
import { openPostgresClusterBus, type PostgresClusterBus } from './postgres/cluster-bus.js';
import { openPostgresLeadership } from './postgres/leadership.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { parsePostgresUrl } from './postgres/connection-url.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the store a database URL names, migrating it when new:
 * `sqlite:PATH`, `sqlite::memory:`, `postgres://...` or `postgresql://...` (optional `?schema=NAME`).
 */
export async function openStore(url: string): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new Error('Invalid SQLite database URL: expected sqlite:PATH or sqlite::memory:');
    return openSqliteStore(path);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgresStore(parsePostgresUrl(url));
  }
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url)?.[0];
  throw new Error(
    `Unsupported database URL${scheme === undefined ? '' : ` scheme "${scheme}"`}: ` +
      'use sqlite:PATH, sqlite::memory: or postgres://...',
  );
}

/**
 * The bus by which instances sharing the database a URL names reach each other: PostgreSQL's LISTEN/NOTIFY.
 * Undefined for SQLite, whose single process has no peers to reach.
 */
export async function openClusterBus(url: string, logger: Logger): Promise<PostgresClusterBus | undefined> {
  if (url.startsWith('sqlite:')) return undefined;
  return openPostgresClusterBus(parsePostgresUrl(url), logger);
}

/**
 * The lead named `name` among the instances on the database at `databaseUrl`: on PostgreSQL a
 * session-level advisory lock, scoped to the URL's schema; on SQLite the one process that opens it leads.
 */
export function openLeadership(
  databaseUrl: string,
  name: string,
  options: Partial<LeadershipOptions> = {},
): Leadership {
  const resolved = { ...DEFAULT_LEADERSHIP_OPTIONS, ...options };
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    return openPostgresLeadership(parsePostgresUrl(databaseUrl), name, resolved);
  }
  return new SoleLeadership();
}

import pg from 'pg';
import type { PostgresTarget } from './connection-url.js';

// Timestamps, block heights and counts are BIGINT; all of them fit a JS number exactly.
const INT8: number = pg.types.builtins.INT8;
const bigintAsNumber = ((oid: number, format?: 'text' | 'binary'): unknown =>
  oid === INT8 ? Number : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser;

/**
 * How long a request waits for a connection before failing: while the database is down, requests are refused
 * (ServiceUnavailable) within this time instead of queueing until the process is stopped.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/** How the store's connections show in `pg_stat_activity`. */
export const POOL_NAME = 'lnswap store';

/** A pool whose every connection starts in the target's schema (as a startup option, so no query can run first). */
export function createPool(target: PostgresTarget): pg.Pool {
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    application_name: POOL_NAME,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    types: { getTypeParser: bigintAsNumber },
    ...(target.schema === undefined ? {} : { options: `-c search_path="${target.schema}"` }),
  });
  // A connection that breaks while idle is dropped by the pool; the next query reports a lasting failure.
  pool.on('error', () => {});
  return pool;
}

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Runs `work` on one client inside BEGIN/COMMIT, rolling back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // The pool listens for errors of idle clients only: a connection that breaks between two of these queries
  // would otherwise raise an unhandled 'error' and end the process. The next query reports the failure.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

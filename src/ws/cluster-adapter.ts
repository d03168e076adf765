import { createHash } from 'node:crypto';
import { createAdapter } from '@socket.io/postgres-adapter';
import pg from 'pg';
import type { Logger } from 'pino';
import { parsePostgresUrl, type PostgresTarget } from '../store/postgres/connection-url.js';

export interface ClusterAdapter {
  readonly adapterFactory: ReturnType<typeof createAdapter>;
  /** Call after every namespace's adapter is closed. */
  close(): Promise<void>;
}

export interface ClusterTiming {
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTimeoutMs: number;
}

/** Where the adapter keeps messages too large for a NOTIFY payload. */
const ATTACHMENTS_TABLE = 'socket_io_attachments';

/**
 * One connection listens, one publishes. A single publishing connection sends this instance's
 * notifications in the order they were emitted: over several, two state changes of one order
 * could reach other instances swapped.
 */
const POOL_SIZE = 2;

/**
 * The socket.io PostgreSQL adapter, so instances sharing one database deliver each other's room
 * broadcasts and server-side events through LISTEN/NOTIFY.
 */
export async function createClusterAdapter(
  databaseUrl: string,
  timing: ClusterTiming,
  logger: Logger,
): Promise<ClusterAdapter> {
  const target = parsePostgresUrl(databaseUrl);
  const pool = createAdapterPool(target, logger);
  try {
    await createAttachmentsTable(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const adapterFactory = createAdapter(pool, {
    channelPrefix: channelPrefixFor(target.schema),
    tableName: ATTACHMENTS_TABLE,
    heartbeatInterval: timing.heartbeatIntervalMs,
    heartbeatTimeout: timing.heartbeatTimeoutMs,
    errorHandler: (error: Error) => logger.warn({ err: error }, 'socket.io cluster adapter error'),
  });
  return { adapterFactory, close: () => pool.end() };
}

/**
 * NOTIFY channels are shared by the whole database, not per schema: services kept apart by schema
 * must not hear each other, so the schema is part of the channel name (hashed, to fit its length limit).
 */
function channelPrefixFor(schema: string | undefined): string {
  const scope = createHash('sha256').update(schema ?? '').digest('hex').slice(0, 16);
  return `lnswap-${scope}`;
}

/** Its connections start in the store's schema, where the attachments table lives. */
function createAdapterPool(target: PostgresTarget, logger: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: POOL_SIZE,
    ...(target.schema === undefined ? {} : { options: `-c search_path="${target.schema}"` }),
  });
  // An idle connection that breaks is replaced by the pool; the adapter reconnects its listener itself.
  pool.on('error', (error) => logger.warn({ err: error }, 'socket.io cluster connection failed'));
  return pool;
}

async function createAttachmentsTable(pool: pg.Pool): Promise<void> {
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${ATTACHMENTS_TABLE} (
         id bigserial UNIQUE,
         created_at timestamptz DEFAULT NOW(),
         payload bytea
       )`,
    );
  } catch (error) {
    // Two instances starting together can both pass IF NOT EXISTS; the loser sees a duplicate.
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw error;
  }
}

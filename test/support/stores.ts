import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import type { Store } from '../../src/store/store.js';

export const POSTGRES_URL: string = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';

async function withPostgresClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: parsePostgresUrl(POSTGRES_URL).connectionString,
    connectionTimeoutMillis: 3000,
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function withoutPassword(url: string): string {
  return url.replace(/^(\w+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

async function probePostgres(): Promise<boolean> {
  try {
    await withPostgresClient((client) => client.query('SELECT 1'));
    return true;
  } catch {
    process.stderr.write(`PostgreSQL not reachable at ${withoutPassword(POSTGRES_URL)}: PostgreSQL tests SKIPPED\n`);
    return false;
  }
}

/**
 * `LNSWAP_TEST_STORES=sqlite` (set by `npm run test:quick`) leaves PostgreSQL out: its tests are reported as
 * skipped, and the server is not even probed.
 */
const postgresOff: boolean = process.env.LNSWAP_TEST_STORES === 'sqlite';

export const postgresReachable: boolean = postgresOff ? false : await probePostgres();

export type StoreKind = 'sqlite' | 'postgres';

export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** For node:test: `describe(kind, { skip: skipReason(kind) }, ...)`. */
export function skipReason(kind: StoreKind): string | false {
  if (kind === 'postgres' && postgresOff) return 'PostgreSQL left out (LNSWAP_TEST_STORES=sqlite)';
  if (kind === 'postgres' && !postgresReachable) return `PostgreSQL not reachable at ${withoutPassword(POSTGRES_URL)}`;
  return false;
}

export interface FreshStore {
  store: Store;
  /** Opens the same database again: for CLI subprocesses and two-instance tests. */
  url: string;
  dispose(): Promise<void>;
}

/** A new, empty, migrated store that nothing else uses; dispose() closes it and deletes its data. */
export async function openFreshStore(kind: StoreKind): Promise<FreshStore> {
  return kind === 'sqlite' ? openFreshSqliteStore() : openFreshPostgresStore();
}

async function openFreshSqliteStore(): Promise<FreshStore> {
  const directory = await mkdtemp(join(tmpdir(), 'lnswap-test-'));
  const url = `sqlite:${join(directory, 'lnswap.sqlite')}`;
  const store = await openStore(url).catch(async (error: unknown) => {
    await rm(directory, { recursive: true, force: true });
    throw error;
  });
  return {
    store,
    url,
    async dispose() {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function openFreshPostgresStore(): Promise<FreshStore> {
  const schema = `lnswap_test_${randomBytes(8).toString('hex')}`;
  const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  const dropSchema = () => withPostgresClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  const store = await openStore(url).catch(async (error: unknown) => {
    await dropSchema();
    throw error;
  });
  return {
    store,
    url,
    async dispose() {
      await store.close();
      await dropSchema();
    },
  };
}

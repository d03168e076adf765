import Database from 'better-sqlite3';
import pg from 'pg';
import type { Migration } from '../../src/store/migrations/migration.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/migrations/postgres.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { openStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { vacuumAnalyze } from './vacuum.js';

async function appliedVersions(url: string): Promise<number[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];
    } finally {
      db.close();
    }
  }
  const { connectionString, schema } = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const table = `"${schema ?? 'public'}".schema_migrations`;
    const result = await client.query<{ version: number }>(`SELECT version FROM ${table}`);
    return result.rows.map((row) => row.version);
  } finally {
    await client.end();
  }
}

/**
 * A dataset cached by an older lnswap is brought to this lnswap's schema before anything is measured, once, and
 * timed: otherwise the first server to open it would migrate it while being measured (or timed out starting).
 * Returns what was done, for the report, or undefined when the schema was current.
 */
export async function upgradeSchema(label: string, url: string): Promise<string | undefined> {
  const migrations: readonly Migration[] = url.startsWith('sqlite:') ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
  const applied = new Set(await appliedVersions(url));
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  if (pending.length === 0) return undefined;
  const started = performance.now();
  const store = await openStore(url);
  await store.close();
  const migrated = (performance.now() - started) / 1000;
  const names = pending.map((migration) => `${migration.version} (${migration.name})`).join(', ');
  const done = `${label}: the cached dataset was migrated to this lnswap's schema, migration ${names}, in ${migrated.toFixed(1)} s`;
  if (url.startsWith('sqlite:')) return `${done}.`;
  const { connectionString, schema } = parsePostgresUrl(url);
  await vacuumAnalyze(connectionString, schema ?? 'public');
  return `${done}, then vacuumed in ${((performance.now() - started) / 1000 - migrated).toFixed(1)} s.`;
}

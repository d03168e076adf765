/**
 * Reads a dataset into the operating system's page cache before a round is measured.
 *
 * This machine's host pages out file pages that no process touched for about a minute (DAMON's `pageout` scheme,
 * `/sys/kernel/mm/damon/admin`): a 1.3 GB database the rounds before left idle comes back from disk, page by page,
 * while the next round runs, and a cold scenario then measures the virtual disk, not lnswap (the same server gave
 * 5,500 to 11,000 req/s depending on what the minute before had read). A server machine keeps a database it
 * serves in memory as long as nothing else needs it, which is what the measurement is meant to show. The bench
 * process reads the files, so nothing of it shows in the server's RSS.
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import pg from 'pg';
import { parsePostgresUrl } from '../src/store/postgres/connection-url.js';

const CHUNK_BYTES = 4 * 1024 * 1024;

function readThrough(file: string): void {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const descriptor = openSync(file, 'r');
  try {
    while (readSync(descriptor, buffer, 0, CHUNK_BYTES, null) > 0);
  } finally {
    closeSync(descriptor);
  }
}

function warmSqlite(path: string): void {
  for (const file of [path, `${path}-wal`]) if (existsSync(file)) readThrough(file);
}

/** pg_prewarm (PostgreSQL's contrib module) in `read` mode: every table and index of the schema, into the OS cache. */
async function warmPostgres(url: string): Promise<void> {
  const { connectionString, schema = 'public' } = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm SCHEMA public');
    await client.query(
      `SELECT public.pg_prewarm(c.oid::regclass, 'read') FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')`,
      [schema],
    );
  } finally {
    await client.end();
  }
}

/** Reads the dataset behind an lnswap `--db` URL into the page cache. */
export async function warmDataset(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) warmSqlite(databaseUrl.slice('sqlite:'.length));
  else await warmPostgres(databaseUrl);
}

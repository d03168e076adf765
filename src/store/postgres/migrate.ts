import type pg from 'pg';
import { pendingMigrations, refusalFor } from '../migrations/migration.js';
import { POSTGRES_MIGRATIONS } from '../migrations/postgres.js';

/**
 * Creates the schema when named and brings it to the latest version, each migration in its own transaction.
 * An advisory lock per schema lets several instances start at once: one migrates, the others wait and find
 * nothing left to do.
 */
export async function migratePostgres(pool: pg.Pool, schema: string | undefined): Promise<void> {
  const lockName = `lnswap migrations ${schema ?? '(default schema)'}`;
  const client = await pool.connect();
  // Checked out, the client has no 'error' listener of the pool's; a broken connection fails the next query.
  const ignoreError = () => {};
  client.on('error', ignoreError);
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockName]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )`);
    const applied = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    for (const migration of pendingMigrations(
      POSTGRES_MIGRATIONS,
      applied.rows.map((row) => row.version),
    )) {
      await client.query('BEGIN');
      if (migration.refuseWhen !== undefined) {
        const conflicts = await client.query<Record<string, unknown>>(migration.refuseWhen.query);
        const refusal = refusalFor(migration, conflicts.rows);
        if (refusal !== undefined) throw refusal;
      }
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        Date.now(),
      ]);
      await client.query('COMMIT');
    }
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockName]);
    client.off('error', ignoreError);
    client.release();
  } catch (error) {
    // Closing the connection rolls back its open transaction and frees its advisory lock.
    client.off('error', ignoreError);
    client.release(true);
    throw error;
  }
}

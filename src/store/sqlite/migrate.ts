import type { Database } from 'better-sqlite3';
import { pendingMigrations, refusalFor } from '../migrations/migration.js';
import { SQLITE_MIGRATIONS } from '../migrations/sqlite.js';

/**
 * Brings the database to the latest schema, each migration in its own transaction. IMMEDIATE takes the write
 * lock before reading what is applied, so processes opening the same file at once apply each step once.
 */
export function migrateSqlite(db: Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const appliedVersions = db.prepare('SELECT version FROM schema_migrations').pluck();
  const recordMigration = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applyNext = db.transaction((): boolean => {
    const [next] = pendingMigrations(SQLITE_MIGRATIONS, appliedVersions.all() as number[]);
    if (next === undefined) return false;
    if (next.refuseWhen !== undefined) {
      const refusal = refusalFor(next, db.prepare(next.refuseWhen.query).all() as Record<string, unknown>[]);
      if (refusal !== undefined) throw refusal;
    }
    db.exec(next.sql);
    recordMigration.run(next.version, next.name, Date.now());
    return true;
  });
  let appliedOne = applyNext.immediate();
  while (appliedOne) appliedOne = applyNext.immediate();
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pendingMigrations, type Migration } from '../../../src/store/migrations/migration.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/migrations/postgres.js';
import { SQLITE_MIGRATIONS } from '../../../src/store/migrations/sqlite.js';

const MIGRATIONS: Migration[] = [
  { version: 1, name: 'one', sql: 'SELECT 1' },
  { version: 2, name: 'two', sql: 'SELECT 2' },
  { version: 3, name: 'three', sql: 'SELECT 3' },
];

test('pending migrations are the unapplied ones, in order', () => {
  assert.deepStrictEqual(pendingMigrations(MIGRATIONS, []), MIGRATIONS);
  assert.deepStrictEqual(
    pendingMigrations(MIGRATIONS, [2, 1]).map((migration) => migration.version),
    [3],
  );
  assert.deepStrictEqual(pendingMigrations(MIGRATIONS, [1, 2, 3]), []);
});

test('a database migrated by a newer lnswap is refused', () => {
  assert.throws(() => pendingMigrations(MIGRATIONS, [1, 2, 3, 7]), /schema version 7.*upgrade lnswap/);
});

test('both dialects list the same versions, ascending', () => {
  const versions = (migrations: readonly Migration[]) => migrations.map((migration) => migration.version);
  assert.deepStrictEqual(versions(SQLITE_MIGRATIONS), versions(POSTGRES_MIGRATIONS));
  const sqliteVersions = versions(SQLITE_MIGRATIONS);
  assert.deepStrictEqual(
    sqliteVersions,
    [...sqliteVersions].sort((left, right) => left - right),
  );
  assert.equal(new Set(sqliteVersions).size, sqliteVersions.length);
});

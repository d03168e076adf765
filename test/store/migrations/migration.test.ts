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

test('each dialect lists its versions once each, ascending', () => {
  for (const migrations of [SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS]) {
    const versions = migrations.map((migration) => migration.version);
    assert.deepStrictEqual(
      versions,
      [...new Set(versions)].sort((left, right) => left - right),
    );
  }
});

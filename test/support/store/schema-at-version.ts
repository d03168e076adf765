import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from '../../../src/store/migrations/postgres.js';
import { parsePostgresUrl } from '../../../src/store/postgres/connection-url.js';
import { POSTGRES_URL } from '../stores.js';

/** A PostgreSQL schema of its own as an older lnswap left it, for a test to fill and then open with today's store. */
export interface SchemaAtVersion {
  /** The store URL of the schema. */
  readonly url: string;
  /** Connected, with the schema as its search path. */
  readonly admin: pg.Client;
  drop(): Promise<void>;
}

/** Creates a schema named after `purpose` and applies the migrations up to `version`, recorded as applied. */
export async function createSchemaAtVersion(purpose: string, version: number): Promise<SchemaAtVersion> {
  const schema = `lnswap_test_${purpose}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`SET search_path TO "${schema}"`);
  await admin.query(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  );
  for (const migration of POSTGRES_MIGRATIONS.filter((candidate) => candidate.version <= version)) {
    await admin.query(migration.sql);
    await admin.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [migration.version, migration.name]);
  }
  return {
    url: `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`,
    admin,
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ProviderCredential } from '../../src/domain/order.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { openStore } from '../../src/store/open.js';
import { ORDER_COLUMNS, orderValues, transactionListOf } from '../../src/store/order-rows.js';
import type { Store } from '../../src/store/store.js';
import { CREATION_CAUSE } from '../support/causes.js';
import { skipReason } from '../support/stores.js';
import { fundedOrderWithTwoTransactions, makeOrder } from '../support/store/fixtures.js';
import { createSchemaAtVersion, type SchemaAtVersion } from '../support/store/schema-at-version.js';

const earlier = fundedOrderWithTwoTransactions(1);
const credential: ProviderCredential = {
  name: 'maker-1',
  apiKey: 'a'.repeat(32),
  secretHash: 'scrypt$x',
  createdAt: 5,
};
const PAYOUT = '0x00000000000000000000000000000000000000aa';
const won = makeOrder(2, {
  market: 'ETH_LBTC',
  payToAddress: '0x00000000000000000000000000000000000000cc',
  providerId: 'maker-1',
  claimAddress: PAYOUT,
});

// Rows as version 6 wrote them: the order's columns and its transaction list, no provider or claimer.
const VERSION_SIX_ORDER_COLUMNS = [...ORDER_COLUMNS, 'transactions'].join(', ');
const versionSixOrderValues = orderValues(earlier).concat(transactionListOf(earlier.transactions));
const VERSION_SIX_CREDENTIAL_COLUMNS = 'name, api_key, secret_hash, created_at, revoked_at';
const credentialValues = [credential.name, credential.apiKey, credential.secretHash, credential.createdAt, null];

/** After migration 7: earlier rows read back without provider, claimer or payout; new ones keep theirs. */
async function assertVersionSevenKeepsAndAdds(store: Store): Promise<void> {
  assert.deepStrictEqual(await store.getOrder(earlier.id), earlier);
  assert.deepStrictEqual(await store.listProviderCredentials(), [credential]);
  await store.createOrder(won, CREATION_CAUSE);
  assert.deepStrictEqual(await store.getOrder(won.id), won);
  assert.equal(await store.setProviderPayoutAddress('maker-1', PAYOUT), true);
  assert.deepStrictEqual(await store.listProviderCredentials(), [{ ...credential, ethereumPayoutAddress: PAYOUT }]);
  assert.equal(await store.setProviderPayoutAddress('nobody', PAYOUT), false);
  assert.equal(await store.revokeProviderCredential('maker-1', 9), true);
  assert.equal(await store.setProviderPayoutAddress('maker-1', PAYOUT), false, 'a revoked credential stays as it was');
}

let dir: string;
let postgresSchema: SchemaAtVersion | undefined;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lnswap-provider-migration-'));
  if (skipReason('postgres') === false) {
    postgresSchema = await createSchemaAtVersion('provider_migration', 6);
    const placeholders = (count: number, from = 1) =>
      Array.from({ length: count }, (_, index) => `$${index + from}`).join(', ');
    await postgresSchema.admin.query(
      `INSERT INTO orders (${VERSION_SIX_ORDER_COLUMNS}) VALUES (${placeholders(versionSixOrderValues.length)})`,
      versionSixOrderValues,
    );
    await postgresSchema.admin.query(
      `INSERT INTO provider_credentials (${VERSION_SIX_CREDENTIAL_COLUMNS}) VALUES (${placeholders(5)})`,
      credentialValues,
    );
  }
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
  await postgresSchema?.drop();
});

test('SQLite version 7 keeps earlier orders and credentials and stores provider, claimer and payout', async () => {
  const path = join(dir, 'version-six.sqlite');
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const migration of SQLITE_MIGRATIONS.filter(({ version }) => version <= 6)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
  }
  const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');
  db.prepare(`INSERT INTO orders (${VERSION_SIX_ORDER_COLUMNS}) VALUES (${marks(versionSixOrderValues.length)})`).run(
    ...versionSixOrderValues,
  );
  db.prepare(`INSERT INTO provider_credentials (${VERSION_SIX_CREDENTIAL_COLUMNS}) VALUES (${marks(5)})`).run(
    ...credentialValues,
  );
  db.close();
  const store = await openStore(`sqlite:${path}`);
  try {
    await assertVersionSevenKeepsAndAdds(store);
  } finally {
    await store.close();
  }
});

test(
  'PostgreSQL version 7 keeps earlier orders and credentials and stores provider, claimer and payout',
  { skip: skipReason('postgres') },
  async () => {
    const store = await openStore(postgresSchema!.url);
    try {
      await assertVersionSevenKeepsAndAdds(store);
    } finally {
      await store.close();
    }
  },
);

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { switchSwapContract } from '../../src/domain/swap-contracts.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { configuration } from '../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS } from '../support/stores.js';
import { createSchemaAtVersion, type SchemaAtVersion } from '../support/store/schema-at-version.js';

const V2 = '0x00000000000000000000000000000000000000a2';
const V3 = '0x00000000000000000000000000000000000000A3';
const ETHEREUM_BEFORE = { blockHeight: 9, swapContractAddress: V2 };
const SWITCHED_AT = 1_700_000_000_000;

async function ethereumView(store: Store) {
  return (await store.getConfiguration()).chains.ethereum;
}

/** The history after a database of the schema before it (one Ethereum chain view) is migrated. */
async function assertMigratedHistory(store: Store): Promise<void> {
  assert.deepStrictEqual(await ethereumView(store), {
    ...ETHEREUM_BEFORE,
    contracts: [{ address: V2, version: 2, since: 0 }],
  });
}

for (const kind of STORE_KINDS) {
  describe(`${kind}: the swap contract history`, { skip: skipReason(kind) }, () => {
    test('a switch keeps the earlier contract; an import and a reopened store keep the whole history', async () => {
      const fresh = await openFreshStore(kind);
      let reopened: Store | undefined;
      try {
        const snapshotConfiguration = configuration({ chains: { ethereum: ETHEREUM_BEFORE }, providers: [] });
        await fresh.store.importAtomically((session) => session.writeConfiguration(snapshotConfiguration));
        const before = await ethereumView(fresh.store);
        assert.deepStrictEqual(before?.contracts, [{ address: V2, version: 2, since: 0 }]);

        await fresh.store.setChainViews({
          ethereum: switchSwapContract(before!, { address: V3, version: 3, since: SWITCHED_AT }),
        });
        const history = [
          { address: V2, version: 2, since: 0 },
          { address: V3.toLowerCase(), version: 3, since: SWITCHED_AT },
        ];
        assert.deepStrictEqual(await ethereumView(fresh.store), {
          blockHeight: 9,
          swapContractAddress: V3,
          contracts: history,
        });

        // A snapshot names the current contract alone: importing it again forgets neither contract nor version.
        const exported = configuration({
          chains: { ethereum: { blockHeight: 12, swapContractAddress: V3 } },
          providers: [],
        });
        await fresh.store.importAtomically((session) => session.writeConfiguration(exported));
        reopened = await openStore(fresh.url);
        assert.deepStrictEqual(await ethereumView(reopened), {
          blockHeight: 12,
          swapContractAddress: V3,
          contracts: history,
        });
      } finally {
        await reopened?.close();
        await fresh.dispose();
      }
    });
  });
}

describe('migration: the contract in use becomes the history', () => {
  let dir: string;
  let postgresSchema: SchemaAtVersion | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lnswap-swap-contracts-migration-'));
    if (skipReason('postgres') === false) {
      postgresSchema = await createSchemaAtVersion('swap_contracts', 9);
      await postgresSchema.admin.query(
        "INSERT INTO chain_views (chain, block_height, swap_contract_address) VALUES ('ethereum', $1, $2)",
        [ETHEREUM_BEFORE.blockHeight, ETHEREUM_BEFORE.swapContractAddress],
      );
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await postgresSchema?.drop();
  });

  test("SQLite: the version-9 database's contract is version 2, in use since before the history", async () => {
    const path = join(dir, 'version-nine.sqlite');
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const migration of SQLITE_MIGRATIONS.filter(({ version }) => version <= 9)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    db.prepare("INSERT INTO chain_views (chain, block_height, swap_contract_address) VALUES ('ethereum', ?, ?)").run(
      ETHEREUM_BEFORE.blockHeight,
      ETHEREUM_BEFORE.swapContractAddress,
    );
    db.close();
    const store = await openStore(`sqlite:${path}`);
    try {
      await assertMigratedHistory(store);
    } finally {
      await store.close();
    }
  });

  test(
    "PostgreSQL: the version-9 schema's contract is version 2, in use since before the history",
    { skip: skipReason('postgres') },
    async () => {
      const store = await openStore(postgresSchema!.url);
      try {
        await assertMigratedHistory(store);
      } finally {
        await store.close();
      }
    },
  );
});

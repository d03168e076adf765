import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import type { StoreChange } from '../../src/store/change-feed.js';
import { openStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { changeChannel, LISTENER_NAME } from '../../src/store/postgres/change-feed.js';
import type { Store } from '../../src/store/store.js';
import { CONFIGURATION, makeOrder, makeProvider } from '../support/store/fixtures.js';
import { openFreshStore, POSTGRES_URL, STORE_KINDS, skipReason, type FreshStore } from '../support/stores.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';
import { eventually } from '../support/eventually.js';

/** Waits up to 5 s for `condition`: PostgreSQL delivers notifications a moment after the commit. */
/** `expected` appears in `seen` in this order, possibly with other changes in between. */
function assertInOrder(seen: readonly StoreChange[], expected: readonly StoreChange[]): void {
  let next = 0;
  for (const change of seen) if (next < expected.length && isDeepStrictEqual(change, expected[next])) next++;
  assert.equal(next, expected.length, `expected ${JSON.stringify(expected)} in order within ${JSON.stringify(seen)}`);
}

/** The feed of `store`, once it vouches for caches (PostgreSQL: once its LISTEN is in place). */
async function recording(store: Store): Promise<StoreChange[]> {
  const seen: StoreChange[] = [];
  store.changes.subscribe((change) => seen.push(change));
  await eventually(() => store.changes.isCurrent(), 'the feed vouches for caches');
  seen.length = 0;
  return seen;
}

for (const kind of STORE_KINDS) {
  describe(`change feed (${kind})`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    let elsewhere: Store;

    before(async () => {
      fresh = await openFreshStore(kind);
      elsewhere = await openStore(fresh.url);
    });

    after(async () => {
      await elsewhere.close();
      await fresh.dispose();
    });

    test("reports this process's writes as they commit", async () => {
      const seen = await recording(fresh.store);
      await fresh.store.importAtomically((session) => session.writeConfiguration(CONFIGURATION));
      await fresh.store.createOrder(makeOrder(1), CREATION_CAUSE);
      await fresh.store.upsertProvider(makeProvider('maker-c', {}));
      await fresh.store.setProviderActive('maker-c', false);
      await fresh.store.setChainViews(CONFIGURATION.chains);
      const move = {
        orderId: makeOrder(1).id,
        from: 'WaitingForFundingTx',
        to: 'FundWindowElapsed',
        at: 1,
        cause: MOVE_CAUSE,
      } as const;
      assert.ok(await fresh.store.transitionOrder(move));
      assert.equal(await fresh.store.transitionOrder(move), undefined, 'a move that did not happen is not reported');
      // The store reports its own writes as they commit; on PostgreSQL their notifications come in between.
      assertInOrder(seen, [
        { kind: 'anything' },
        { kind: 'orderCreated', invoiceHash: makeOrder(1).invoiceHash },
        { kind: 'configuration' },
        { kind: 'configuration' },
        { kind: 'configuration' },
        { kind: 'orderMoved', orderId: makeOrder(1).id },
      ]);
      const moves = kind === 'sqlite' ? 1 : 2;
      await eventually(
        () => seen.filter((change) => change.kind === 'orderMoved').length === moves,
        `${moves} orderMoved`,
      );
    });

    test("another process's writes are reported once committed, and rolled-back ones never", async () => {
      const isolated = await openFreshStore(kind);
      const writer = await openStore(isolated.url);
      try {
        const seen = await recording(isolated.store);
        await assert.rejects(
          writer.importAtomically(async (session) => {
            await session.writeOrders([makeOrder(2)]);
            throw new Error('abandoned');
          }),
        );
        await writer.createOrder(makeOrder(3), CREATION_CAUSE);
        await eventually(() => isolated.store.changes.isCurrent() && seen.length > 0, 'a change is reported');
        // SQLite knows only that another connection committed; PostgreSQL's notification says what.
        const expected: StoreChange =
          kind === 'sqlite' ? { kind: 'anything' } : { kind: 'orderCreated', invoiceHash: makeOrder(3).invoiceHash };
        assert.deepEqual(seen, [expected]);
      } finally {
        await writer.close();
        await isolated.dispose();
      }
    });

    test('the configuration another process writes is read at once after it is reported', async () => {
      await fresh.store.getConfiguration();
      await elsewhere.upsertProvider(makeProvider('maker-d', {}, false));
      await eventually(async () => {
        const { providers } = await fresh.store.getConfiguration();
        return providers.some((provider) => provider.id === 'maker-d');
      }, 'the new provider is read');
    });
  });
}

describe('change feed (postgres): a lost notification connection', { skip: skipReason('postgres') }, () => {
  let fresh: FreshStore;
  before(async () => {
    fresh = await openFreshStore('postgres');
  });
  after(async () => fresh.dispose());

  test('stops vouching for caches until it listens again, then reports that anything may have changed', async () => {
    const seen = await recording(fresh.store);
    const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query = $2',
        [LISTENER_NAME, `LISTEN "${changeChannel(parsePostgresUrl(fresh.url))}"`],
      );
      assert.equal(rowCount, 1);
    } finally {
      await admin.end();
    }
    await eventually(() => !fresh.store.changes.isCurrent(), 'the feed notices the lost connection');
    await eventually(() => fresh.store.changes.isCurrent(), 'the feed listens again');
    assert.deepEqual(seen, [{ kind: 'anything' }, { kind: 'anything' }]);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OrderRecord } from '../../src/domain/order.js';
import { BatchedReads, MAX_KEYS_PER_QUERY } from '../../src/store/batched-reads.js';
import type { Store } from '../../src/store/store.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';
import { buildOrder, hashOfInvoice, seedStore } from '../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS } from '../support/stores.js';
import { makeOrder, orderId, useFreshStore } from '../support/store/fixtures.js';

type Row = [key: string, value: number];

/** Numbers looked up by key, recording the keys of every query asked. */
function countedReads(readRows: (keys: string[]) => Promise<Row[]>) {
  const queries: string[][] = [];
  const reads = new BatchedReads<string, Row, number[]>({
    readRows: (keys) => {
      queries.push(keys);
      return readRows(keys);
    },
    keyOf: ([key]) => key,
    answer: (rows) => rows.map(([, value]) => value),
  });
  return { reads, queries };
}

const rowsIn =
  (table: readonly Row[]) =>
  async (keys: string[]): Promise<Row[]> =>
    table.filter(([key]) => keys.includes(key));

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('batched reads', () => {
  test('the lookups of one turn share one query for their distinct keys, and each gets its own answer', async () => {
    const { reads, queries } = countedReads(
      rowsIn([
        ['a', 1],
        ['b', 2],
        ['a', 3],
      ]),
    );
    const answers = await Promise.all(['a', 'b', 'unknown', 'a'].map((key) => reads.load(key)));
    assert.deepStrictEqual(answers, [[1, 3], [2], [], [1, 3]]);
    assert.notEqual(answers[0], answers[3], 'callers of the same key do not share an answer object');
    assert.deepStrictEqual(queries, [['a', 'b', 'unknown']]);
  });

  test('a lookup asked while a query is under way waits for a query of its own', async () => {
    const releases: (() => void)[] = [];
    const { reads, queries } = countedReads(async () => {
      await new Promise<void>((resolve) => releases.push(resolve));
      return [];
    });
    const first = reads.load('a');
    await nextTurn();
    assert.equal(queries.length, 1, 'the first query is under way');
    const second = reads.load('a');
    await nextTurn();
    assert.equal(queries.length, 2, 'the second lookup did not wait for the first query to answer it');
    for (const release of releases) release();
    assert.deepStrictEqual(await Promise.all([first, second]), [[], []]);
  });

  test('a failed query rejects every lookup of its batch with its error, and later lookups query again', async () => {
    const failure = new Error('connection terminated');
    let failing = true;
    const { reads, queries } = countedReads(async (keys) => {
      if (failing) throw failure;
      return rowsIn([['a', 1]])(keys);
    });
    const outcomes = await Promise.allSettled(['a', 'b', 'a'].map((key) => reads.load(key)));
    assert.deepStrictEqual(
      outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason === failure),
      [true, true, true],
    );
    failing = false;
    assert.deepStrictEqual(await reads.load('a'), [1]);
    assert.equal(queries.length, 2);
  });

  test('a lookup whose answer cannot be built rejects alone', async () => {
    const reads = new BatchedReads<string, Row, number>({
      readRows: async () => [
        ['good', 1],
        ['bad', -1],
      ],
      keyOf: ([key]) => key,
      answer: ([row]) => {
        if (row === undefined || row[1] < 0) throw new RangeError('undecodable row');
        return row[1];
      },
    });
    const [good, bad] = await Promise.allSettled([reads.load('good'), reads.load('bad')]);
    assert.deepStrictEqual(good, { status: 'fulfilled', value: 1 });
    assert.equal(bad?.status, 'rejected');
  });

  test(`more than ${MAX_KEYS_PER_QUERY} keys in one turn are split over several queries, all answered`, async () => {
    const keyCount = 2 * MAX_KEYS_PER_QUERY + 1;
    const table = Array.from({ length: keyCount }, (_, index): Row => [`key-${index}`, index]);
    const { reads, queries } = countedReads(rowsIn(table));
    const answers = await Promise.all(table.map(([key]) => reads.load(key)));
    assert.deepStrictEqual(
      answers,
      table.map(([, value]) => [value]),
    );
    assert.deepStrictEqual(
      queries.map((keys) => keys.length),
      [MAX_KEYS_PER_QUERY, MAX_KEYS_PER_QUERY, 1],
    );
  });
});

/** Each key read on its own, one turn after the other: what every batched read must equal. */
async function oneAtATime<T>(keys: readonly string[], read: (key: string) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (const key of keys) {
    answers.push(await read(key));
    await nextTurn();
  }
  return answers;
}

for (const kind of STORE_KINDS) {
  describe(`${kind} store: batched order reads`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    // One invoice, several orders (one of them live), two created at the same time: newest first, then by id.
    const first = buildOrder({ label: 'batched first', createdAt: 1_700_000_000_000, state: 'FundWindowElapsed' });
    const sameInvoice = [
      buildOrder({ label: 'batched newer', sameInvoiceAs: first, createdAt: 1_700_000_060_000, market: 'ETH_LBTC' }),
      buildOrder({
        label: 'batched tie a',
        sameInvoiceAs: first,
        createdAt: 1_700_000_030_000,
        state: 'Complete',
        preimageKnown: true,
      }),
      buildOrder({
        label: 'batched tie b',
        sameInvoiceAs: first,
        createdAt: 1_700_000_030_000,
        state: 'Refunded',
        funds: [35_590n],
        refunded: true,
      }),
    ];
    const other = buildOrder({ label: 'batched other', createdAt: 1_700_000_000_000, preimageKnown: true });
    const orders: OrderRecord[] = [first, ...sameInvoice, other].map((built) => built.record);

    async function seeded(): Promise<Store> {
      const store = fresh.store();
      await seedStore(store, { orders });
      return store;
    }

    test('getOrder calls of one turn, known, unknown and repeated ids, each get what a lone call gets', async () => {
      const store = await seeded();
      const ids = [...orders.map((order) => order.id), orderId(404), orders[1]!.id, orderId(404), orders[0]!.id];
      const expected = await oneAtATime(ids, (id) => store.getOrder(id));
      assert.deepStrictEqual(expected.slice(0, orders.length), orders, 'the lone reads are the seeded orders');
      assert.deepStrictEqual(await Promise.all(ids.map((id) => store.getOrder(id))), expected);
    });

    test('findOrdersByInvoiceHash calls of one turn each get their orders newest first, [] when unknown', async () => {
      const store = await seeded();
      const hashes = [
        first.record.invoiceHash,
        other.record.invoiceHash,
        hashOfInvoice('unknown'),
        first.record.invoiceHash,
      ];
      const expected = await oneAtATime(hashes, (hash) => store.findOrdersByInvoiceHash(hash));
      assert.deepStrictEqual(
        expected[0]?.map((order) => order.id),
        [
          sameInvoice[0]!.record,
          ...[sameInvoice[1]!.record, sameInvoice[2]!.record].sort((a, b) => (a.id < b.id ? 1 : -1)),
          first.record,
        ].map((order) => order.id),
      );
      assert.deepStrictEqual(expected[2], []);
      assert.deepStrictEqual(await Promise.all(hashes.map((hash) => store.findOrdersByInvoiceHash(hash))), expected);
    });

    test('batched reads and reads by hash and ticker in the same turn answer as they would alone', async () => {
      const store = await seeded();
      const hash = first.record.invoiceHash;
      const [byId, byHash, byHashAndTicker] = await Promise.all([
        store.getOrder(other.record.id),
        store.findOrdersByInvoiceHash(hash),
        store.findOrdersByInvoiceHash(hash, 'eth'),
      ]);
      assert.deepStrictEqual(byId, other.record);
      assert.deepStrictEqual(byHash, await store.findOrdersByInvoiceHash(hash));
      assert.deepStrictEqual(byHashAndTicker, [sameInvoice[0]!.record]);
    });

    test(`more than ${MAX_KEYS_PER_QUERY} ids in one turn are all answered`, async () => {
      const store = fresh.store();
      const many = Array.from({ length: MAX_KEYS_PER_QUERY + 44 }, (_, index) => makeOrder(index + 1));
      await seedStore(store, { orders: many });
      const ids = [...many.map((order) => order.id), orderId(100_000)];
      assert.deepStrictEqual(await Promise.all(ids.map((id) => store.getOrder(id))), [...many, undefined]);
      assert.deepStrictEqual(
        await Promise.all(many.map((order) => store.findOrdersByInvoiceHash(order.invoiceHash))),
        many.map((order) => [order]),
      );
    });

    test('a read asked right after a write commits sees the write', async () => {
      const store = await seeded();
      await store.transitionOrder({
        orderId: other.record.id,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: other.record.createdAt + 1_000,
        cause: MOVE_CAUSE,
      });
      assert.equal((await store.getOrder(other.record.id))?.state, 'WaitingForFundingTxConfirmation');

      const newest = buildOrder({
        label: 'batched newest',
        sameInvoiceAs: first,
        createdAt: 1_700_000_090_000,
        state: 'FundWindowElapsed',
      });
      await store.createOrder(newest.record, CREATION_CAUSE);
      assert.deepStrictEqual((await store.findOrdersByInvoiceHash(first.record.invoiceHash))[0], newest.record);
    });

    test('a read asked just before close() is still answered', async () => {
      const separate = await openFreshStore(kind);
      try {
        await seedStore(separate.store, { orders });
        const reading = separate.store.getOrder(first.record.id);
        await separate.store.close();
        assert.deepStrictEqual(await reading, first.record);
      } finally {
        await separate.dispose();
      }
    });
  });
}

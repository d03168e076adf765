import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ImportSession } from '../../src/store/store.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { CONFIGURATION, hex64, makeOrder, orderId, useFreshStore } from '../support/store/fixtures.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';

const EMPTY_CONFIGURATION = { markets: [], chains: {}, providers: [], tokens: [] };

for (const kind of STORE_KINDS) {
  describe(`${kind} store: importAtomically`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('writes configuration and orders that read back as written', async () => {
      const orders = [
        makeOrder(1, { transactions: [{ type: 'FUND', id: 'f', amount: 2n ** 64n + 1n, outputIndex: 0 }] }),
        makeOrder(2, { market: 'ETH_LBTC', state: 'Complete', paymentPreimage: hex64(2) }),
      ];
      await fresh.store().importAtomically(async (session) => {
        await session.writeConfiguration(CONFIGURATION);
        await session.writeOrders(orders);
      });
      assert.deepStrictEqual(await fresh.store().getOrder(orders[0]!.id), orders[0]);
      assert.deepStrictEqual(await fresh.store().getOrder(orders[1]!.id), orders[1]);
      assert.deepStrictEqual((await fresh.store().getConfiguration()).markets, CONFIGURATION.markets);
    });

    test('records the state of each new order in its history at the time of the import', async () => {
      const before = Date.now();
      await fresh.store().importAtomically((session) => session.writeOrders([makeOrder(3, { state: 'Complete' })]));
      const history = await fresh.store().getOrderHistory(orderId(3));
      assert.equal(history.length, 1);
      assert.equal(history[0]?.state, 'Complete');
      assert.ok(history[0]!.at >= before && history[0]!.at <= Date.now());
      assert.equal(Object.hasOwn(history[0]!, 'cause'), false, 'a snapshot does not say why');
    });

    test('re-importing an order replaces it and its transactions; history grows only when the state changes', async () => {
      const first = makeOrder(4, {
        transactions: [
          { type: 'FUND', id: 'a', amount: 1n, outputIndex: 0 },
          { type: 'FUND', id: 'b', amount: 2n, outputIndex: 1 },
        ],
      });
      await fresh.store().importAtomically((session) => session.writeOrders([first]));
      const sameState = { ...first, amount: 99n, transactions: [{ type: 'REFUND', id: 'r' }] } as const;
      await fresh.store().importAtomically((session) => session.writeOrders([sameState]));
      assert.deepStrictEqual(await fresh.store().getOrder(first.id), sameState);
      assert.deepStrictEqual(
        (await fresh.store().getOrderHistory(first.id)).map((change) => change.state),
        ['WaitingForFundingTx'],
      );

      const moved = { ...sameState, state: 'Refunded', payToAddress: 'elsewhere' } as const;
      await fresh.store().importAtomically((session) => session.writeOrders([moved]));
      assert.deepStrictEqual(await fresh.store().getOrder(first.id), moved);
      assert.deepStrictEqual(
        (await fresh.store().getOrderHistory(first.id)).map((change) => change.state),
        ['WaitingForFundingTx', 'Refunded'],
      );
    });

    test('re-importing replaces an order that was created and moved through the engine path', async () => {
      const created = makeOrder(5, { state: 'Funded' });
      await fresh.store().createOrder(created, CREATION_CAUSE);
      const completed = { orderId: created.id, from: 'Funded', to: 'Complete', at: 77, cause: MOVE_CAUSE } as const;
      await fresh.store().transitionOrder(completed);
      const replacement = makeOrder(5, { state: 'Funded', refundAddress: 'bc1q-refund' });
      await fresh.store().importAtomically((session) => session.writeOrders([replacement]));
      assert.deepStrictEqual(await fresh.store().getOrder(created.id), replacement);
      assert.deepStrictEqual(
        (await fresh.store().getOrderHistory(created.id)).map((change) => [change.state, change.cause]),
        [
          ['Funded', CREATION_CAUSE],
          ['Complete', MOVE_CAUSE],
          // A snapshot does not say why its orders are where they are.
          ['Funded', undefined],
        ],
      );
    });

    test('within one batch a later record of the same id wins', async () => {
      const early = makeOrder(6, { transactions: [{ type: 'FUND', id: 'x', amount: 1n }] });
      const late = makeOrder(6, { state: 'FundWindowElapsed', amount: 5n });
      await fresh.store().importAtomically((session) => session.writeOrders([early, makeOrder(7), late]));
      assert.deepStrictEqual(await fresh.store().getOrder(early.id), late);
      assert.deepStrictEqual(await fresh.store().getOrder(orderId(7)), makeOrder(7));
      assert.deepStrictEqual(
        (await fresh.store().getOrderHistory(early.id)).map((change) => change.state),
        ['WaitingForFundingTx', 'FundWindowElapsed'],
      );
    });

    test('an import that throws writes nothing and rethrows its error', async () => {
      const failure = new Error('bad record');
      await assert.rejects(
        fresh.store().importAtomically(async (session) => {
          await session.writeConfiguration(CONFIGURATION);
          await session.writeOrders([makeOrder(8), makeOrder(9)]);
          throw failure;
        }),
        (error) => error === failure,
      );
      assert.deepStrictEqual(await fresh.store().getConfiguration(), EMPTY_CONFIGURATION);
      assert.equal(await fresh.store().getOrder(orderId(8)), undefined);
      assert.deepStrictEqual(await fresh.store().getOrderHistory(orderId(8)), []);
      assert.equal(await fresh.store().countOrdersInStates(['WaitingForFundingTx']), 0);
    });

    test('a database error midway rolls back the writes before it, replacements included', async () => {
      const original = makeOrder(10);
      await fresh.store().createOrder(original, CREATION_CAUSE);
      const invalidType = { type: 'BOGUS', id: 'x' } as unknown as (typeof original.transactions)[number];
      await assert.rejects(
        fresh.store().importAtomically(async (session) => {
          await session.writeOrders([{ ...original, state: 'Funded', amount: 1n }]);
          await session.writeOrders([makeOrder(11, { transactions: [invalidType] })]);
        }),
      );
      assert.deepStrictEqual(await fresh.store().getOrder(original.id), original);
      assert.equal((await fresh.store().getOrderHistory(original.id)).length, 1);
      assert.equal(await fresh.store().getOrder(orderId(11)), undefined);
    });

    test('writes made outside a running import are kept when the import rolls back', async () => {
      let releaseImport!: () => void;
      const importMayFail = new Promise<void>((resolve) => {
        releaseImport = resolve;
      });
      const importing = fresh.store().importAtomically(async (session) => {
        await session.writeOrders([makeOrder(12)]);
        await importMayFail;
        throw new Error('import failed');
      });
      const outside = fresh.store().createOrder(makeOrder(13), CREATION_CAUSE);
      setTimeout(releaseImport, 20);
      await assert.rejects(importing, /import failed/);
      await outside;
      assert.equal(await fresh.store().getOrder(orderId(12)), undefined);
      assert.deepStrictEqual(await fresh.store().getOrder(orderId(13)), makeOrder(13));
    });

    test('a session used after its import ended is refused', async () => {
      let leaked: ImportSession | undefined;
      await fresh.store().importAtomically(async (session) => {
        leaked = session;
      });
      await assert.rejects(leaked!.writeOrders([makeOrder(14)]), /already ended/);
      assert.equal(await fresh.store().getOrder(orderId(14)), undefined);
    });

    test('after finishOrders the orders written so far read back indexed, and further orders are refused', async () => {
      const shared = makeOrder(17);
      await fresh.store().importAtomically(async (session) => {
        await session.writeOrders([shared, makeOrder(18, { invoiceHash: shared.invoiceHash })]);
        await session.finishOrders();
        await assert.rejects(session.writeOrders([makeOrder(19)]), /already finished writing orders/);
      });
      assert.deepStrictEqual(
        (await fresh.store().findOrdersByInvoiceHash(shared.invoiceHash)).map((order) => order.id),
        [orderId(18), orderId(17)],
      );
      assert.equal(await fresh.store().getOrder(orderId(19)), undefined);
    });

    if (kind === 'sqlite') {
      test('a read asked while an import holds the connection is answered inside it, and leaves it open', async () => {
        const imported = makeOrder(20);
        const importing = fresh.store().importAtomically(async (session) => {
          await session.writeOrders([imported]);
          // One connection: the import's own writes are what a read on it sees until the import ends.
          assert.deepStrictEqual(await fresh.store().getOrder(imported.id), imported);
          throw new Error('import failed after the read');
        });
        await assert.rejects(importing, /import failed after the read/);
        assert.equal(await fresh.store().getOrder(imported.id), undefined, 'the read did not commit the import');
      });

      test('a second import while one runs is rejected, and the first one still commits', async () => {
        let releaseFirst!: () => void;
        const firstMayFinish = new Promise<void>((resolve) => {
          releaseFirst = resolve;
        });
        const first = fresh.store().importAtomically(async (session) => {
          await session.writeOrders([makeOrder(15)]);
          await firstMayFinish;
        });
        await assert.rejects(
          fresh.store().importAtomically((session) => session.writeOrders([makeOrder(16)])),
          /Another import is already running/,
        );
        releaseFirst();
        await first;
        assert.deepStrictEqual(await fresh.store().getOrder(orderId(15)), makeOrder(15));
        assert.equal(await fresh.store().getOrder(orderId(16)), undefined);
      });
    }
  });
}

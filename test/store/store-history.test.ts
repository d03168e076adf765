import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TransitionCause } from '../../src/domain/transition-cause.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { makeOrder, useFreshStore } from '../support/store/fixtures.js';

const quoted: TransitionCause = {
  source: 'request',
  reason: 'requestQuote',
  requestId: 'c0ffee00-0000-4000-8000-000000000001',
};
const seen: TransitionCause = {
  source: 'chain',
  reason: 'fundingSeen',
  chain: 'ethereum',
  txId: '0x9a1e6c7f3b2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7',
};
const confirmed: TransitionCause = {
  source: 'chain',
  reason: 'fundingConfirmed',
  chain: 'ethereum',
  txId: '0x9a1e6c7f3b2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7',
  // Past 2^32, so no 32-bit column or cast can hold it.
  blockHeight: 2 ** 40 + 3,
  blockHash: '0x5b2f0c1a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a',
};
// Quotes, backslashes, braces and commas are what PostgreSQL's array syntax and JSON both escape.
const paid: TransitionCause = { source: 'request', reason: 'paymentResult', requestId: 'a "quoted", {braced} \\ ü 🗲' };
const elapsed: TransitionCause = { source: 'timer', reason: 'fundWindowElapsed' };

for (const kind of STORE_KINDS) {
  describe(`${kind} store: history causes`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('each history row gives back the cause its move was written with, field for field', async () => {
      const order = makeOrder(1);
      const store = fresh.store();
      await store.createOrder(order, quoted);
      const moves = [
        { from: 'WaitingForFundingTx', to: 'WaitingForFundingTxConfirmation', cause: seen },
        { from: 'WaitingForFundingTxConfirmation', to: 'Funded', cause: confirmed },
        { from: 'Funded', to: 'Complete', cause: paid },
      ] as const;
      for (const [index, move] of moves.entries()) {
        assert.equal(
          await store.transitionOrder({ orderId: order.id, at: index + 10, ...move }),
          index + 2,
          'its sequence',
        );
      }
      assert.deepStrictEqual(await store.getOrderHistory(order.id), [
        { state: 'WaitingForFundingTx', at: order.createdAt, cause: quoted },
        { state: 'WaitingForFundingTxConfirmation', at: 10, cause: seen },
        { state: 'Funded', at: 11, cause: confirmed },
        { state: 'Complete', at: 12, cause: paid },
      ]);
      assert.deepStrictEqual(await store.getOrderHistorySince(order.id, 2), [
        { sequence: 3, state: 'Funded', at: 11, cause: confirmed },
        { sequence: 4, state: 'Complete', at: 12, cause: paid },
      ]);
      assert.deepStrictEqual(await store.getOrderHistorySince(order.id, 4), []);
      assert.deepStrictEqual(await store.getOrderHistorySince('00000000-0000-4000-8000-000000000000', 0), []);
    });

    test('a cause with only a source and a reason comes back without the optional fields', async () => {
      const order = makeOrder(2);
      const store = fresh.store();
      await store.createOrder(order, quoted);
      await store.transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTx',
        to: 'FundWindowElapsed',
        at: 5,
        cause: elapsed,
      });
      const [, last] = await store.getOrderHistory(order.id);
      assert.deepStrictEqual(last, { state: 'FundWindowElapsed', at: 5, cause: elapsed });
      assert.deepStrictEqual(Object.keys(last?.cause ?? {}), ['source', 'reason']);
    });

    test('a move that lost the compare-and-set leaves no cause behind', async () => {
      const order = makeOrder(3);
      const store = fresh.store();
      await store.createOrder(order, quoted);
      const move = { orderId: order.id, from: 'WaitingForFundingTx', to: 'FundWindowElapsed', at: 5 } as const;
      assert.equal(await store.transitionOrder({ ...move, cause: elapsed }), 2);
      assert.equal(await store.transitionOrder({ ...move, cause: paid }), undefined);
      const causes = (await store.getOrderHistory(order.id)).map((change) => change.cause);
      assert.deepStrictEqual(causes, [quoted, elapsed]);
    });
  });
}

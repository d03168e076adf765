import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStore } from '../../src/store/open.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { hex64, makeOrder, orderId, useFreshStore } from '../support/store/fixtures.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';

for (const kind of STORE_KINDS) {
  describe(`${kind} store: state transitions`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('a move writes the state, the history entry, the transaction and the preimage together', async () => {
      const order = makeOrder(1, { state: 'Funded', transactions: [{ type: 'FUND', id: 'fund', amount: 10n }] });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const moved = await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'Funded',
        to: 'Complete',
        at: order.createdAt + 60_000,
        paymentPreimage: hex64(7),
        cause: MOVE_CAUSE,
      });
      assert.equal(moved, 2, 'the sequence of the history row the move appended');
      assert.deepStrictEqual(await fresh.store().getOrder(order.id), {
        ...order,
        state: 'Complete',
        paymentPreimage: hex64(7),
      });
      assert.deepStrictEqual(await fresh.store().getOrderHistory(order.id), [
        { state: 'Funded', at: order.createdAt, cause: CREATION_CAUSE },
        { state: 'Complete', at: order.createdAt + 60_000, cause: MOVE_CAUSE },
      ]);
    });

    test('a move appends its transaction after the existing ones', async () => {
      const order = makeOrder(2, { transactions: [{ type: 'FUND', id: 'first', amount: 5n, outputIndex: 0 }] });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const funding = { type: 'FUND', id: 'second', amount: 2n ** 65n, outputIndex: 1 } as const;
      assert.equal(
        await fresh.store().transitionOrder({
          orderId: order.id,
          from: 'WaitingForFundingTx',
          to: 'WaitingForFundingTxConfirmation',
          at: 1,
          transaction: funding,
          cause: MOVE_CAUSE,
        }),
        2,
      );
      const stored = await fresh.store().getOrder(order.id);
      assert.deepStrictEqual(stored?.transactions, [...order.transactions, funding]);
      assert.equal(stored?.state, 'WaitingForFundingTxConfirmation');
      assert.equal(Object.hasOwn(stored, 'paymentPreimage'), false);
    });

    test('the same transaction seen again updates its record instead of adding a second one', async () => {
      const order = makeOrder(3);
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const seen = { type: 'FUND', id: 'fund-tx', amount: 35_590n, outputIndex: 0 } as const;
      await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: 1,
        transaction: seen,
        cause: MOVE_CAUSE,
      });
      await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTxConfirmation',
        to: 'Funded',
        at: 2,
        transaction: { ...seen, blockHeight: 612_010 },
        cause: MOVE_CAUSE,
      });
      const stored = await fresh.store().getOrder(order.id);
      assert.deepStrictEqual(stored?.transactions, [{ ...seen, blockHeight: 612_010 }]);
    });

    test('a preimage already stored survives a later move without one', async () => {
      const order = makeOrder(4, { state: 'Funded', paymentPreimage: hex64(9) });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'Funded',
        to: 'Complete',
        at: 5,
        cause: MOVE_CAUSE,
      });
      assert.equal((await fresh.store().getOrder(order.id))?.paymentPreimage, hex64(9));
    });

    test('compare-and-set: a move from a state the order has left resolves false and writes nothing', async () => {
      const order = makeOrder(5, { state: 'Funded' });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'Funded',
        to: 'WaitingForRefundTx',
        at: 10,
        cause: MOVE_CAUSE,
      });
      const lost = await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'Funded',
        to: 'Complete',
        at: 11,
        paymentPreimage: hex64(1),
        transaction: { type: 'FUND', id: 'late', amount: 1n },
        cause: { source: 'request', reason: 'paymentResult', requestId: 'lost' },
      });
      assert.equal(lost, undefined);
      assert.deepStrictEqual(await fresh.store().getOrder(order.id), { ...order, state: 'WaitingForRefundTx' });
      assert.deepStrictEqual(await fresh.store().getOrderHistory(order.id), [
        { state: 'Funded', at: order.createdAt, cause: CREATION_CAUSE },
        { state: 'WaitingForRefundTx', at: 10, cause: MOVE_CAUSE },
      ]);
    });

    test('a move of an unknown order resolves undefined', async () => {
      assert.equal(
        await fresh.store().transitionOrder({
          orderId: orderId(404),
          from: 'Funded',
          to: 'Complete',
          at: 1,
          cause: MOVE_CAUSE,
        }),
        undefined,
      );
    });

    test('a move the state machine forbids is refused before anything is written', async () => {
      const order = makeOrder(6, { state: 'Complete' });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      await assert.rejects(
        fresh.store().transitionOrder({
          orderId: order.id,
          from: 'Complete',
          to: 'Refunded',
          at: 1,
          cause: MOVE_CAUSE,
        }),
        /cannot move from Complete to Refunded/,
      );
      await assert.rejects(
        fresh.store().transitionOrder({
          orderId: order.id,
          from: 'Complete',
          to: 'Complete',
          at: 1,
          cause: MOVE_CAUSE,
        }),
        /cannot move/,
      );
      assert.deepStrictEqual(await fresh.store().getOrder(order.id), order);
      assert.equal((await fresh.store().getOrderHistory(order.id)).length, 1);
    });

    test('of racing moves from the same state exactly one wins', async () => {
      const order = makeOrder(7, { state: 'Funded' });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const results = await Promise.all([
        fresh.store().transitionOrder({ orderId: order.id, from: 'Funded', to: 'Complete', at: 1, cause: MOVE_CAUSE }),
        fresh.store().transitionOrder({
          orderId: order.id,
          from: 'Funded',
          to: 'WaitingForRefundTx',
          at: 2,
          cause: MOVE_CAUSE,
        }),
        fresh.store().transitionOrder({ orderId: order.id, from: 'Funded', to: 'Complete', at: 3, cause: MOVE_CAUSE }),
      ]);
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal((await fresh.store().getOrderHistory(order.id)).length, 2);
    });

    test('two instances on one database: a move by one is seen, and lost, by the other', async () => {
      const order = makeOrder(8, { state: 'Funded' });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const other = await openStore(fresh.current().url);
      try {
        const results = await Promise.all([
          fresh.store().transitionOrder({
            orderId: order.id,
            from: 'Funded',
            to: 'Complete',
            at: 1,
            cause: MOVE_CAUSE,
          }),
          other.transitionOrder({
            orderId: order.id,
            from: 'Funded',
            to: 'WaitingForRefundTx',
            at: 2,
            cause: MOVE_CAUSE,
          }),
        ]);
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results[0] ? 'Complete' : 'WaitingForRefundTx';
        assert.equal((await other.getOrder(order.id))?.state, winner);
        assert.equal((await fresh.store().getOrder(order.id))?.state, winner);
      } finally {
        await other.close();
      }
    });
  });
}

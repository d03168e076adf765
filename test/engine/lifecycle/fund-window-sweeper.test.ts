import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sweepElapsedFundWindows } from '../../../src/engine/lifecycle/fund-window-sweeper.js';
import { OrderTransitions } from '../../../src/engine/lifecycle/order-transitions.js';
import type { StateChangedEvent } from '../../../src/engine/lifecycle/state-events.js';
import { BASE_TIME_MS, buildOrder, seedStore } from '../../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../../support/stores.js';

const WINDOW_CLOSES = BASE_TIME_MS + 30 * 60 * 1000;

for (const kind of STORE_KINDS) {
  describe(`fund window sweeper on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    const elapsed = buildOrder({ label: 'elapsed' }).record;
    const elapsedToo = buildOrder({ label: 'elapsed too', createdAt: BASE_TIME_MS - 1 }).record;
    const stillOpen = buildOrder({ label: 'still open', createdAt: BASE_TIME_MS + 1 }).record;
    const beingFunded = buildOrder({
      label: 'being funded',
      state: 'WaitingForFundingTxConfirmation',
      funds: [35_590n],
    }).record;

    before(async () => {
      fresh = await openFreshStore(kind);
      await seedStore(fresh.store, { orders: [elapsed, elapsedToo, stillOpen, beingFunded] });
    });
    after(() => fresh?.dispose());

    test('moves each order whose window closed exactly once, however many instances sweep, with one event each', async () => {
      const events: StateChangedEvent[] = [];
      const instanceA = new OrderTransitions(fresh.store, (event) => events.push(event));
      const instanceB = new OrderTransitions(fresh.store, (event) => events.push(event));

      const moved = await Promise.all([
        sweepElapsedFundWindows(fresh.store, instanceA, WINDOW_CLOSES),
        sweepElapsedFundWindows(fresh.store, instanceB, WINDOW_CLOSES),
      ]);
      assert.equal(moved[0] + moved[1], 2);
      assert.deepEqual(events.map((event) => event.orderId).sort(), [elapsed.id, elapsedToo.id].sort());
      assert.ok(
        events.every(
          (event) => event.state === 'FundWindowElapsed' && event.sequence === 2 && Object.keys(event).length === 3,
        ),
      );

      assert.equal((await fresh.store.getOrder(elapsed.id))?.state, 'FundWindowElapsed');
      assert.deepEqual((await fresh.store.getOrderHistory(elapsed.id)).slice(1), [
        { state: 'FundWindowElapsed', at: WINDOW_CLOSES, cause: { source: 'timer', reason: 'fundWindowElapsed' } },
      ]);
      assert.equal((await fresh.store.getOrder(stillOpen.id))?.state, 'WaitingForFundingTx');
      assert.equal((await fresh.store.getOrder(beingFunded.id))?.state, 'WaitingForFundingTxConfirmation');

      assert.equal(await sweepElapsedFundWindows(fresh.store, instanceA, WINDOW_CLOSES), 0, 'nothing left to move');
      assert.equal(
        await sweepElapsedFundWindows(fresh.store, instanceA, WINDOW_CLOSES + 1),
        1,
        'the next window closes',
      );
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`an expiry never overwrites a funded or paid order, on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    const settled = (
      ['PartiallyFunded', 'WaitingForAdditionalFundingTxConfirmation', 'Funded', 'Complete'] as const
    ).map(
      (state) =>
        buildOrder({ label: `past its window, ${state}`, state, funds: [35_590n], preimageKnown: state === 'Complete' })
          .record,
    );
    // Windows that close one after another, so that each test's sweep reaches only its own orders.
    const racing = Array.from(
      { length: 20 },
      (_, index) => buildOrder({ label: `racing ${index}`, createdAt: BASE_TIME_MS + 1_000 }).record,
    );
    const inGrace = buildOrder({ label: 'in its grace', createdAt: BASE_TIME_MS + 100_000 }).record;

    before(async () => {
      fresh = await openFreshStore(kind);
      await seedStore(fresh.store, { orders: [...settled, ...racing, inGrace] });
    });
    after(() => fresh?.dispose());

    test('orders that were funded stay as they are, their histories untouched', async () => {
      const transitions = new OrderTransitions(fresh.store, () => undefined);
      const before = await Promise.all(settled.map((order) => fresh.store.getOrderHistory(order.id)));
      await sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES);
      for (const [index, order] of settled.entries()) {
        assert.equal((await fresh.store.getOrder(order.id))?.state, order.state);
        assert.deepEqual(await fresh.store.getOrderHistory(order.id), before[index]);
      }
    });

    test('a funding seen at the edge and the sweep racing it: one of them wins, and the order is in one state', async () => {
      const transitions = new OrderTransitions(fresh.store, () => undefined);
      const [, ...funded] = await Promise.all([
        sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES + 1_000),
        ...racing.map((order) =>
          transitions.apply({
            orderId: order.id,
            from: 'WaitingForFundingTx',
            to: 'WaitingForFundingTxConfirmation',
            at: WINDOW_CLOSES,
            transaction: { type: 'FUND', id: `fund-${order.id}`, amount: order.amount },
            cause: { source: 'chain', reason: 'fundingSeen', chain: 'bitcoin', txId: `fund-${order.id}` },
          }),
        ),
      ]);
      for (const [index, order] of racing.entries()) {
        const stored = await fresh.store.getOrder(order.id);
        const history = await fresh.store.getOrderHistory(order.id);
        assert.equal(history.length, 2, `${order.id}: one move after the first state`);
        assert.equal(history[1]?.state, stored?.state);
        assert.equal(
          stored?.state,
          funded[index] ? 'WaitingForFundingTxConfirmation' : 'FundWindowElapsed',
          'the funding, where it won, stands',
        );
      }
    });

    test('within its grace an order is left to the chain watchers', async () => {
      const transitions = new OrderTransitions(fresh.store, () => undefined);
      const closes = inGrace.expiresAt;
      assert.equal(await sweepElapsedFundWindows(fresh.store, transitions, closes + 999, { graceMs: 1_000 }), 0);
      assert.equal((await fresh.store.getOrder(inGrace.id))?.state, 'WaitingForFundingTx');
      assert.equal(await sweepElapsedFundWindows(fresh.store, transitions, closes + 1_000, { graceMs: 1_000 }), 1);
      assert.deepEqual((await fresh.store.getOrderHistory(inGrace.id)).slice(1), [
        { state: 'FundWindowElapsed', at: closes + 1_000, cause: { source: 'timer', reason: 'fundWindowElapsed' } },
      ]);
    });
  });
}

describe('fund window sweeper, stopped', () => {
  test('stops between orders once its signal is aborted, leaving the rest to the next sweep', async () => {
    const fresh = await openFreshStore('sqlite');
    try {
      const orders = ['one', 'two', 'three'].map((label) => buildOrder({ label }).record);
      await seedStore(fresh.store, { orders });
      const stopping = new AbortController();
      const transitions = new OrderTransitions(fresh.store, () => stopping.abort());
      assert.equal(
        await sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES, { signal: stopping.signal }),
        1,
      );
      assert.equal(await sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES), 2);
    } finally {
      await fresh.dispose();
    }
  });
});

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

describe('fund window sweeper, stopped', () => {
  test('stops between orders once its signal is aborted, leaving the rest to the next sweep', async () => {
    const fresh = await openFreshStore('sqlite');
    try {
      const orders = ['one', 'two', 'three'].map((label) => buildOrder({ label }).record);
      await seedStore(fresh.store, { orders });
      const stopping = new AbortController();
      const transitions = new OrderTransitions(fresh.store, () => stopping.abort());
      assert.equal(await sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES, stopping.signal), 1);
      assert.equal(await sweepElapsedFundWindows(fresh.store, transitions, WINDOW_CLOSES), 2);
    } finally {
      await fresh.dispose();
    }
  });
});

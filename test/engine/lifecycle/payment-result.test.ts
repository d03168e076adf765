import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OrderTransitions } from '../../../src/engine/lifecycle/order-transitions.js';
import { applyPaymentResult, readPaymentResult } from '../../../src/engine/lifecycle/payment-result.js';
import type { StateChangedEvent } from '../../../src/engine/lifecycle/state-events.js';
import { buildOrder, hex32, seedStore, type BuiltOrder } from '../../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../../support/stores.js';
import { refusal } from '../../support/refusal.js';

describe('readPaymentResult', () => {
  test('reads the documented fields and normalizes the order id', async () => {
    assert.deepEqual(
      readPaymentResult({ orderId: 'A61131F70B66460EB3D837D59F94B8AA', success: false, failedReason: 'PaymentFailed' }),
      {
        orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
        success: false,
        failedReason: 'PaymentFailed',
      },
    );
    assert.deepEqual(
      readPaymentResult({ orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa', success: false, failedReason: null }),
      {
        orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
        success: false,
      },
    );
    assert.equal(
      refusal(() => readPaymentResult({ orderId: 'nope', success: true })),
      'InvalidOrderId',
    );
    for (const payload of [
      null,
      [],
      { success: true },
      { orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa', success: 'yes' },
    ]) {
      assert.equal(
        refusal(() => readPaymentResult(payload)),
        'InvalidOrMissingQuoteFields',
        JSON.stringify(payload),
      );
    }
  });

  test('InvalidFailedReason for a reason REDSHIFT does not know, in any spelling, or of any length', () => {
    for (const failedReason of ['no route', 'addressblacklisted', 'AddressBlacklisted ', '', 'x'.repeat(100_000)]) {
      const payload = { orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa', success: false, failedReason };
      assert.equal(
        refusal(() => readPaymentResult(payload)),
        'InvalidFailedReason',
        failedReason.slice(0, 30),
      );
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`applyPaymentResult on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    const events: StateChangedEvent[] = [];
    let transitions: OrderTransitions;
    const won = (built: BuiltOrder): BuiltOrder => ({ ...built, record: { ...built.record, providerId: 'maker-1' } });
    const funded = won(buildOrder({ label: 'paid', state: 'Funded', funds: [35_590n] }));
    const unfunded = won(buildOrder({ label: 'not yet funded' }));
    const blacklisted = won(buildOrder({ label: 'blacklisted sender', state: 'Funded', funds: [35_590n] }));
    const contested = won(buildOrder({ label: 'contested', state: 'Funded', funds: [35_590n] }));
    const imported = buildOrder({ label: 'imported without a provider', state: 'Funded', funds: [35_590n] });

    before(async () => {
      fresh = await openFreshStore(kind);
      const orders = [funded, unfunded, blacklisted, contested, imported].map((built) => built.record);
      await seedStore(fresh.store, { orders });
      transitions = new OrderTransitions(fresh.store, (event) => events.push(event));
    });
    after(() => fresh?.dispose());

    const applyAs = (providerId: string, payload: unknown) =>
      applyPaymentResult(readPaymentResult(payload), fresh.store, transitions, 5000, providerId, 'request-1');
    const apply = (payload: unknown) => applyAs('maker-1', payload);

    test('OrderNotWonByProvider: a provider that did not win the order can report nothing on it', async () => {
      const orderId = contested.record.id;
      for (const payload of [
        { orderId, success: false, failedReason: 'AddressBlacklisted' },
        { orderId, success: false, failedReason: 'PaymentFailed' },
        { orderId, success: true, preimage: contested.preimage },
      ]) {
        assert.equal(
          await refusal(() => applyAs('maker-2', payload)),
          'OrderNotWonByProvider',
          JSON.stringify(payload),
        );
      }
      assert.equal((await fresh.store.getOrder(orderId))?.state, 'Funded');
      assert.equal((await fresh.store.getOrderHistory(orderId)).length, 1);
      assert.deepEqual(events, []);
    });

    test('an order without a provider takes a proven payment from any provider, and no failure', async () => {
      const orderId = imported.record.id;
      for (const failedReason of ['AddressBlacklisted', 'PaymentFailed']) {
        assert.equal(
          await refusal(() => applyAs('maker-2', { orderId, success: false, failedReason })),
          'OrderNotWonByProvider',
        );
      }
      assert.equal((await fresh.store.getOrder(orderId))?.state, 'Funded');
      assert.equal(
        await refusal(() => applyAs('maker-2', { orderId, success: true, preimage: hex32('wrong') })),
        'InvalidPreimage',
      );
      await applyAs('maker-2', { orderId, success: true, preimage: imported.preimage });
      assert.equal((await fresh.store.getOrder(orderId))?.state, 'Complete');
      events.length = 0;
    });

    test('refuses a wrong preimage, an unknown order, and a payment before the funds are confirmed', async () => {
      assert.equal(
        await refusal(() => apply({ orderId: funded.record.id, success: true, preimage: hex32('wrong') })),
        'InvalidPreimage',
      );
      assert.equal(await refusal(() => apply({ orderId: funded.record.id, success: true })), 'InvalidPreimage');
      assert.equal(
        await refusal(() => apply({ orderId: funded.record.id, success: true, preimage: 'zz' })),
        'InvalidPreimage',
      );
      assert.equal(
        await refusal(() =>
          apply({ orderId: '00000000-0000-4000-8000-000000000000', success: true, preimage: funded.preimage }),
        ),
        'OrderNotFound',
      );
      assert.equal(
        await refusal(() => apply({ orderId: unfunded.record.id, success: true, preimage: unfunded.preimage })),
        'OrderNotFunded',
      );
      assert.deepEqual(events, []);
      assert.equal((await fresh.store.getOrder(funded.record.id))?.state, 'Funded');
    });

    test('a reported failure changes nothing', async () => {
      await apply({ orderId: funded.record.id, success: false, failedReason: 'PaymentFailed' });
      await apply({ orderId: funded.record.id, success: false });
      assert.equal((await fresh.store.getOrder(funded.record.id))?.state, 'Funded');
      assert.deepEqual(events, []);
    });

    test('a valid preimage completes the order once, with the preimage in store and event; a repeat is accepted', async () => {
      await apply({ orderId: funded.record.id, success: true, preimage: funded.preimage.toUpperCase() });
      const order = await fresh.store.getOrder(funded.record.id);
      assert.equal(order?.state, 'Complete');
      assert.equal(order?.paymentPreimage, funded.preimage);
      assert.deepEqual(events, [
        { orderId: funded.record.id, state: 'Complete', sequence: 2, preimage: funded.preimage },
      ]);

      await apply({ orderId: funded.record.id, success: true, preimage: funded.preimage });
      assert.equal(events.length, 1);
      const history = await fresh.store.getOrderHistory(funded.record.id);
      assert.deepEqual(
        history.map((change) => change.state),
        ['Funded', 'Complete'],
        'the repeat moved nothing',
      );
      assert.equal(history[1]?.cause?.reason, 'paymentResult');
      assert.equal(
        await refusal(() => apply({ orderId: funded.record.id, success: true, preimage: hex32('wrong') })),
        'InvalidPreimage',
      );
    });

    test('AddressBlacklisted holds a funded order for the admin refund, once; refused before funding', async () => {
      events.length = 0;
      const report = (orderId: string) => apply({ orderId, success: false, failedReason: 'AddressBlacklisted' });
      assert.equal(await refusal(() => report(unfunded.record.id)), 'OrderNotFunded');
      assert.equal((await fresh.store.getOrder(unfunded.record.id))?.state, 'WaitingForFundingTx');

      await report(blacklisted.record.id);
      const order = await fresh.store.getOrder(blacklisted.record.id);
      assert.equal(order?.state, 'AddressBlacklistedWaitingForRefundTx');
      assert.deepEqual((await fresh.store.getOrderHistory(blacklisted.record.id)).at(-1), {
        state: 'AddressBlacklistedWaitingForRefundTx',
        at: 5000,
        cause: { source: 'request', reason: 'paymentFailedAddressBlacklisted', requestId: 'request-1' },
      });
      assert.deepEqual(events, [
        { orderId: blacklisted.record.id, state: 'AddressBlacklistedWaitingForRefundTx', sequence: 2 },
      ]);

      await report(blacklisted.record.id);
      assert.equal(events.length, 1, 'a repeated report moved the order again');
      // The funds stay locked for the operator: a preimage can no longer complete it.
      assert.equal(
        await refusal(() => apply({ orderId: blacklisted.record.id, success: true, preimage: blacklisted.preimage })),
        'OrderNotFunded',
      );
    });
  });
}

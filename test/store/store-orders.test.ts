import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OrderRecord } from '../../src/domain/order.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { collect, hex64, makeOrder, orderId, useFreshStore } from '../support/store/fixtures.js';
import { CREATION_CAUSE } from '../support/causes.js';

const UINT256_MAX = 2n ** 256n - 1n;

const FULL_ORDER: OrderRecord = makeOrder(1, {
  market: 'ETH_LBTC',
  amount: 2n ** 64n * 1000n + 7n,
  paymentPreimage: hex64(42),
  refundAddress: '0x1111111111111111111111111111111111111111',
  providerId: 'maker-1',
  claimAddress: '0x2222222222222222222222222222222222222222',
  htlc: { redeemScript: 'a914deadbeef87', refundableAtBlockHeight: 9_230_500 },
  transactions: [
    { type: 'FUND', id: '0xfeed', amount: UINT256_MAX, outputIndex: 3, blockHeight: 9_230_001 },
    { type: 'REFUND', id: '0xbeef', blockHeight: 9_230_600 },
  ],
});

for (const kind of STORE_KINDS) {
  describe(`${kind} store: orders`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('an order comes back exactly as created, amounts beyond 2^64 included', async () => {
      await fresh.store().createOrder(FULL_ORDER, CREATION_CAUSE);
      assert.deepStrictEqual(await fresh.store().getOrder(FULL_ORDER.id), FULL_ORDER);
    });

    test('absent optional fields come back as absent properties, not null or undefined keys', async () => {
      const order = makeOrder(2, { transactions: [{ type: 'FUND', id: 'tx-mempool' }] });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const stored = await fresh.store().getOrder(order.id);
      assert.ok(stored);
      assert.deepStrictEqual(stored, order);
      for (const key of ['paymentPreimage', 'refundAddress', 'providerId', 'claimAddress'])
        assert.equal(Object.hasOwn(stored, key), false, key);
      assert.equal(Object.hasOwn(stored.htlc, 'redeemScript'), false);
      const [transaction] = stored.transactions;
      assert.ok(transaction);
      for (const key of ['amount', 'outputIndex', 'blockHeight']) {
        assert.equal(Object.hasOwn(transaction, key), false, key);
      }
    });

    test('an unknown id reads as undefined', async () => {
      assert.equal(await fresh.store().getOrder(orderId(404)), undefined);
    });

    test('creating an order whose id exists is refused and leaves the first one intact', async () => {
      const first = makeOrder(3);
      await fresh.store().createOrder(first, CREATION_CAUSE);
      await assert.rejects(fresh.store().createOrder(makeOrder(3, { amount: 1n }), CREATION_CAUSE));
      assert.deepStrictEqual(await fresh.store().getOrder(first.id), first);
      assert.equal((await fresh.store().getOrderHistory(first.id)).length, 1);
    });

    test('transactions keep their insertion order', async () => {
      const order = makeOrder(4, {
        transactions: [
          { type: 'FUND', id: 'c-third-alphabetically', amount: 3n, outputIndex: 0 },
          { type: 'FUND', id: 'a-first-alphabetically', amount: 1n, outputIndex: 1 },
          { type: 'REFUND', id: 'b-second-alphabetically' },
        ],
      });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      const stored = await fresh.store().getOrder(order.id);
      assert.deepStrictEqual(
        stored?.transactions.map((transaction) => transaction.id),
        ['c-third-alphabetically', 'a-first-alphabetically', 'b-second-alphabetically'],
      );
    });

    test('creating an order records its first state at its creation time', async () => {
      const order = makeOrder(5, { state: 'WaitingForFundingTx' });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      assert.deepStrictEqual(await fresh.store().getOrderHistory(order.id), [
        { state: 'WaitingForFundingTx', at: order.createdAt, cause: CREATION_CAUSE },
      ]);
      assert.deepStrictEqual(await fresh.store().getOrderHistory(orderId(999)), []);
    });

    describe('findOrdersByInvoiceHash', () => {
      const invoiceHash = hex64(0xabc);
      const sameHash = [
        makeOrder(10, { invoiceHash, market: 'BTC_LBTC', createdAt: 1000 }),
        makeOrder(11, { invoiceHash, market: 'ETH_LBTC', createdAt: 3000 }),
        makeOrder(12, { invoiceHash, market: 'ETH_LBTC', createdAt: 2000 }),
        makeOrder(13, { invoiceHash, market: 'BTC_LBTC', createdAt: 2000 }),
        makeOrder(14, { invoiceHash, market: 'SETH_LSBTC', createdAt: 2500 }),
      ];

      test('sorts newest first, then by id descending, and includes transactions', async () => {
        for (const order of sameHash) await fresh.store().createOrder(order, CREATION_CAUSE);
        await fresh.store().createOrder(makeOrder(15, { invoiceHash: hex64(0xdef) }), CREATION_CAUSE);
        const found = await fresh.store().findOrdersByInvoiceHash(invoiceHash);
        assert.deepStrictEqual(
          found.map((order) => order.id),
          [orderId(11), orderId(14), orderId(13), orderId(12), orderId(10)],
        );
        assert.deepStrictEqual(found[0], sameHash[1]);
      });

      test('filters by the on-chain ticker of the market, ignoring case and not by prefix', async () => {
        for (const order of sameHash) await fresh.store().createOrder(order, CREATION_CAUSE);
        const eth = await fresh.store().findOrdersByInvoiceHash(invoiceHash, 'eth');
        assert.deepStrictEqual(
          eth.map((order) => order.id),
          [orderId(11), orderId(12)],
        );
        const seth = await fresh.store().findOrdersByInvoiceHash(invoiceHash, 'SETH');
        assert.deepStrictEqual(
          seth.map((order) => order.id),
          [orderId(14)],
        );
        assert.deepStrictEqual(await fresh.store().findOrdersByInvoiceHash(invoiceHash, 'ET'), []);
        assert.deepStrictEqual(await fresh.store().findOrdersByInvoiceHash(invoiceHash, 'KETH'), []);
      });

      test('answers an empty list for an unknown hash', async () => {
        await fresh.store().createOrder(sameHash[0]!, CREATION_CAUSE);
        assert.deepStrictEqual(await fresh.store().findOrdersByInvoiceHash(hex64(0x123)), []);
      });
    });

    test('listOrdersExpiredIn returns orders of that state expired at or before now, soonest first', async () => {
      const now = 1_700_000_000_000;
      const orders = [
        makeOrder(20, { expiresAt: now }),
        makeOrder(21, { expiresAt: now - 5000 }),
        makeOrder(22, { expiresAt: now + 1 }),
        makeOrder(23, { expiresAt: now - 10, state: 'Complete' }),
        makeOrder(24, { expiresAt: now - 5000 }),
      ];
      for (const order of orders) await fresh.store().createOrder(order, CREATION_CAUSE);
      const expired = await fresh.store().listOrdersExpiredIn('WaitingForFundingTx', now);
      assert.deepStrictEqual(
        expired.map((order) => order.id),
        [orderId(21), orderId(24), orderId(20)],
      );
      assert.deepStrictEqual(await fresh.store().listOrdersExpiredIn('WaitingForFundingTx', now - 5001), []);
    });

    test('findOrdersByPaymentHash keeps only the given states', async () => {
      const paymentHash = hex64(0x5eed);
      const orders = [
        makeOrder(30, { paymentHash, state: 'Funded', createdAt: 2 }),
        makeOrder(31, { paymentHash, state: 'WaitingForRefundTx', createdAt: 1 }),
        makeOrder(32, { paymentHash, state: 'Complete', createdAt: 3 }),
        makeOrder(33, { state: 'Funded' }),
      ];
      for (const order of orders) await fresh.store().createOrder(order, CREATION_CAUSE);
      const found = await fresh.store().findOrdersByPaymentHash(paymentHash, ['Funded', 'WaitingForRefundTx']);
      assert.deepStrictEqual(
        found.map((order) => order.id),
        [orderId(31), orderId(30)],
      );
      assert.deepStrictEqual(found[1], orders[0]);
      assert.deepStrictEqual(await fresh.store().findOrdersByPaymentHash(paymentHash, []), []);
    });

    test('countOrdersInStates counts orders in any of the states', async () => {
      const states = ['Funded', 'Funded', 'Complete', 'Refunded', 'WaitingForFundingTx'] as const;
      for (const [n, state] of states.entries()) {
        await fresh.store().createOrder(makeOrder(40 + n, { state }), CREATION_CAUSE);
      }
      assert.equal(await fresh.store().countOrdersInStates(['Funded']), 2);
      assert.equal(await fresh.store().countOrdersInStates(['Funded', 'Complete', 'Refunded']), 4);
      assert.equal(await fresh.store().countOrdersInStates(['PartiallyFunded']), 0);
      assert.equal(await fresh.store().countOrdersInStates([]), 0);
    });

    describe('streamOrders', () => {
      test('yields every order once, by createdAt then id, across batch boundaries', async () => {
        const orders = Array.from({ length: 23 }, (_, n) =>
          makeOrder(100 + n, {
            createdAt: 5000 + Math.floor(((n * 7) % 23) / 3),
            transactions: n % 4 === 0 ? [{ type: 'FUND', id: `tx-${n}`, amount: BigInt(n) + 2n ** 80n }] : [],
          }),
        );
        await fresh.store().importAtomically((session) => session.writeOrders(orders));
        const expected = [...orders].sort((left, right) =>
          left.createdAt === right.createdAt ? (left.id < right.id ? -1 : 1) : left.createdAt - right.createdAt,
        );
        for (const batchSize of [1, 4, 23, 1000]) {
          assert.deepStrictEqual(await collect(fresh.store().streamOrders(batchSize)), expected, `batch ${batchSize}`);
        }
        assert.deepStrictEqual(await collect(fresh.store().streamOrders()), expected);
      });

      test('yields nothing from an empty store', async () => {
        assert.deepStrictEqual(await collect(fresh.store().streamOrders(10)), []);
      });

      test('refuses a batch size that is not a positive integer', async () => {
        await assert.rejects(collect(fresh.store().streamOrders(0)), RangeError);
        await assert.rejects(collect(fresh.store().streamOrders(1.5)), RangeError);
      });
    });
  });
}

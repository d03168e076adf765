import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readInvoice } from '../../src/domain/bolt11-reader.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import { orderToSnapshot } from '../../src/snapshot/snapshot-format.js';
import { KNOWN_CATALOG } from '../../src/domain/market-catalog.js';
import { validateOrder, type OrderValidationContext } from '../../src/snapshot/validate-order.js';
import { sampleOrders } from '../support/snapshot/snapshot-fixtures.js';

const context: OrderValidationContext = {
  invoices: { check: (invoice) => ({ read: readInvoice(invoice), invoiceHash: hashInvoice(invoice) }) },
  catalog: KNOWN_CATALOG,
  offeredMarkets: undefined,
};

/** Every field a record can have, in the order validateOrder has always written them. */
const ORDER_KEYS = [
  'id',
  'market',
  'invoice',
  'invoiceHash',
  'paymentHash',
  'createdAt',
  'expiresAt',
  'state',
  'amount',
  'payToAddress',
  'paymentPreimage',
  'refundAddress',
  'providerId',
  'claimAddress',
  'htlc',
  'transactions',
];
const TRANSACTION_KEYS = ['type', 'id', 'amount', 'outputIndex', 'blockHeight'];

function keysInOrder(value: object, order: readonly string[]): string[] {
  return order.filter((key) => Object.hasOwn(value, key));
}

describe('validateOrder', () => {
  test('reads a snapshot order back into the record it was written from, fields in their usual order', () => {
    for (const { record } of sampleOrders()) {
      const read = validateOrder(JSON.parse(JSON.stringify(orderToSnapshot(record, KNOWN_CATALOG))), context);
      assert.deepStrictEqual(read, record);
      assert.deepStrictEqual(Object.keys(read), keysInOrder(read, ORDER_KEYS));
      for (const transaction of read.transactions) {
        assert.deepStrictEqual(Object.keys(transaction), keysInOrder(transaction, TRANSACTION_KEYS));
      }
    }
  });
});

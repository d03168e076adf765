import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LnswapError } from '../../../src/domain/errors.js';
import { payloadReader } from '../../../src/engine/lifecycle/payload-shapes.js';
import {
  credentialsShape,
  marketListShape,
  orderStateSubscriptionShape,
  paymentResultShape,
  quoteRequestShape,
} from '../../../src/wire/socket-payloads.js';

const ORDER_ID = '0b7c5d52-3c2e-4f4b-9a43-2f7f3b9f7a10';

function refusal(read: (payload: unknown) => unknown, payload: unknown): string | undefined {
  try {
    read(payload);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof LnswapError, String(error));
    return error.token;
  }
}

describe('payload readers', () => {
  const subscription = payloadReader(orderStateSubscriptionShape);

  test('a payload of the shape passes as it came', () => {
    const payload = { orderId: ORDER_ID.replaceAll('-', '').toUpperCase(), sinceSequence: 3, extra: true };
    assert.equal(subscription(payload), payload);
    assert.equal(refusal(subscription, { orderId: ORDER_ID, sinceSequence: null }), undefined);
  });

  test('the first faulty field decides the token, in the order the fields are documented', () => {
    for (const payload of [undefined, null, 'x', [ORDER_ID], {}, { orderId: 7 }, { orderId: 'not-a-uuid' }]) {
      assert.equal(refusal(subscription, payload), 'InvalidOrderId', JSON.stringify(payload));
    }
    assert.equal(refusal(subscription, { orderId: 'nope', sinceSequence: -1 }), 'InvalidOrderId');
    for (const sinceSequence of [-1, 1.5, '1', 2 ** 53, true]) {
      assert.equal(refusal(subscription, { orderId: ORDER_ID, sinceSequence }), 'InvalidSinceSequence');
    }
  });

  test('shapes with one token refuse every fault with it', () => {
    const quote = payloadReader(quoteRequestShape);
    for (const payload of [
      [],
      { market: 'BTC_LBTC' },
      { market: '', invoice: 'lnbc' },
      { market: 'BTC_LBTC', invoice: 'lnbc', refundAddress: 1 },
    ]) {
      assert.equal(refusal(quote, payload), 'InvalidOrMissingQuoteRequestFields', JSON.stringify(payload));
    }
    assert.equal(refusal(quote, { market: 'BTC_LBTC', invoice: 'lnbc', refundAddress: null }), undefined);
    assert.equal(
      refusal(payloadReader(credentialsShape), { apiKey: 'a', secretKey: '' }),
      'InvalidOrMissingCredentials',
    );
    assert.equal(refusal(payloadReader(marketListShape), []), 'InvalidOrMissingMarkets');
    assert.equal(refusal(payloadReader(marketListShape), ['BTC_LBTC', 1]), 'InvalidOrMissingMarkets');
  });

  test('a fault of one keyword can have its own token: a payment result names a bad order id before other faults', () => {
    const result = payloadReader(paymentResultShape);
    assert.equal(refusal(result, { orderId: 'nope' }), 'InvalidOrderId');
    assert.equal(refusal(result, { orderId: 'nope', success: 'yes', preimage: 7 }), 'InvalidOrderId');
    for (const payload of [
      null,
      [],
      {},
      { orderId: 5, success: true },
      { orderId: ORDER_ID },
      { orderId: ORDER_ID, success: true, preimage: 7 },
    ]) {
      assert.equal(refusal(result, payload), 'InvalidOrMissingQuoteFields', JSON.stringify(payload));
    }
    assert.equal(refusal(result, { orderId: ORDER_ID, success: false, failedReason: null, preimage: null }), undefined);
  });
});

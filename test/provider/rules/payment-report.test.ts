import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { paymentResultFor, refusalResultFor } from '../../../src/provider/rules/payment-report.js';

describe('what the provider reports with paymentResult', () => {
  test('a success carries the preimage', () => {
    assert.deepEqual(paymentResultFor('o1', { state: 'succeeded', preimage: 'aa'.repeat(32) }), {
      orderId: 'o1',
      success: true,
      preimage: 'aa'.repeat(32),
    });
  });

  test('nothing is reported while the payment is in flight: a failure now could be followed by a success', () => {
    assert.equal(paymentResultFor('o1', { state: 'paying' }), undefined);
  });

  test("a failure is PaymentFailed whatever the node said: the service takes REDSHIFT's words only", () => {
    for (const failureReason of ['no-route', 'insufficient-balance', 'timeout'] as const) {
      assert.deepEqual(paymentResultFor('o1', { state: 'failed', failureReason }), {
        orderId: 'o1',
        success: false,
        failedReason: 'PaymentFailed',
      });
    }
  });

  test('a decision never to pay is reported as a failure, except a payment already begun, whose own outcome is', () => {
    assert.deepEqual(refusalResultFor('o1', 'refund-height-too-close'), {
      orderId: 'o1',
      success: false,
      failedReason: 'PaymentFailed',
    });
    assert.equal(refusalResultFor('o1', 'already-begun'), undefined);
  });

  test('a success without its preimage is a bug, not a report', () => {
    assert.throws(() => paymentResultFor('o1', { state: 'succeeded' }), /preimage/);
  });
});

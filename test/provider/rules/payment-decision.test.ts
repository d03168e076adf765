import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decidePayment, type PaymentConditions } from '../../../src/provider/rules/payment-decision.js';

const ready: PaymentConditions = {
  serviceState: 'Funded',
  ownFunding: { amount: 100_000n, confirmations: 1 },
  expectedAmount: 100_000n,
  requiredConfirmations: 1,
  currentHeight: 1_000,
  refundHeight: 1_100,
  claimMarginBlocks: 20,
  invoiceExpiresAtMs: 2_000_000,
  nowMs: 1_000_000,
  alreadyBegun: false,
};

describe('when the provider pays an invoice', () => {
  test('an order funded in full, confirmed, with time left and a live invoice is paid', () => {
    assert.deepEqual(decidePayment(ready), { pay: true });
  });

  test('a hash paid before is never paid again, even when everything else says pay', () => {
    assert.deepEqual(decidePayment({ ...ready, alreadyBegun: true }), {
      pay: false,
      final: true,
      reason: 'already-begun',
    });
  });

  test('the service saying Funded is not enough: the provider waits for its own view of the funding', () => {
    assert.deepEqual(decidePayment({ ...ready, ownFunding: undefined }), {
      pay: false,
      final: false,
      reason: 'funding-not-seen',
    });
    assert.deepEqual(decidePayment({ ...ready, ownFunding: { amount: 100_000n, confirmations: 0 } }), {
      pay: false,
      final: false,
      reason: 'unconfirmed',
    });
  });

  test('its own view is not enough either: it waits while the service does not say Funded', () => {
    for (const serviceState of ['WaitingForFundingTx', 'WaitingForFundingTxConfirmation', 'Complete'] as const) {
      assert.deepEqual(decidePayment({ ...ready, serviceState }), { pay: false, final: false, reason: 'not-funded' });
    }
  });

  test('a funding short by one base unit is never paid', () => {
    assert.deepEqual(decidePayment({ ...ready, ownFunding: { amount: 99_999n, confirmations: 6 } }), {
      pay: false,
      final: true,
      reason: 'underfunded',
    });
  });

  test('an order funded too close to its refund height is not paid: the margin must be exceeded', () => {
    const tooClose = { pay: false, final: true, reason: 'refund-height-too-close' };
    assert.deepEqual(decidePayment({ ...ready, currentHeight: 1_080 }), tooClose, 'exactly the margin left');
    assert.deepEqual(
      decidePayment({ ...ready, currentHeight: 1_079 }),
      { pay: true },
      'one block more than the margin',
    );
    assert.deepEqual(decidePayment({ ...ready, currentHeight: 1_200 }), tooClose, 'past the refund height');
  });

  test('an expired invoice is not paid', () => {
    assert.deepEqual(decidePayment({ ...ready, nowMs: ready.invoiceExpiresAtMs }), {
      pay: false,
      final: true,
      reason: 'invoice-expired',
    });
  });
});

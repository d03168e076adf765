import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  eventNeedsStoredOrder,
  replayedStateChangedEvent,
  stateChangedEvent,
} from '../../../src/engine/lifecycle/state-events.js';
import type { StateTransition } from '../../../src/store/store.js';
import { buildOrder } from '../../support/fixtures.js';
import { MOVE_CAUSE } from '../../support/causes.js';

const funded = buildOrder({ label: 'events', state: 'Funded', funds: [20_000n, 15_590n] }).record;
const orderId = funded.id;

function transition(overrides: Partial<StateTransition> & Pick<StateTransition, 'from' | 'to'>): StateTransition {
  return { orderId, at: 1, cause: MOVE_CAUSE, ...overrides };
}

describe('stateChangedEvent', () => {
  test('plain moves carry only the order id and state', () => {
    const move = transition({ from: 'WaitingForFundingTx', to: 'FundWindowElapsed' });
    assert.equal(eventNeedsStoredOrder(move), false);
    assert.deepEqual(stateChangedEvent(move, 2), { orderId, state: 'FundWindowElapsed', sequence: 2 });
  });

  test('Funded and PartiallyFunded carry the FUND transaction of the move, else the latest stored one', () => {
    const withTransaction = transition({
      from: 'WaitingForFundingTxConfirmation',
      to: 'Funded',
      transaction: { type: 'FUND', id: 'tx-of-the-move', amount: 1n, outputIndex: 0 },
    });
    assert.equal(eventNeedsStoredOrder(withTransaction), false);
    assert.deepEqual(stateChangedEvent(withTransaction, 3), {
      orderId,
      state: 'Funded',
      sequence: 3,
      transactionId: 'tx-of-the-move',
    });

    const bare = transition({ from: 'WaitingForFundingTx', to: 'PartiallyFunded' });
    assert.equal(eventNeedsStoredOrder(bare), true);
    assert.deepEqual(stateChangedEvent(bare, 2, funded), {
      orderId,
      state: 'PartiallyFunded',
      sequence: 2,
      transactionId: funded.transactions[1]?.id,
    });
  });

  test('Refunded carries the REFUND transaction', () => {
    const refunded = buildOrder({ label: 'events', state: 'Refunded', funds: [35_590n], refunded: true }).record;
    const move = transition({ from: 'WaitingForRefundTxConfirmation', to: 'Refunded' });
    const refundId = refunded.transactions.find((transaction) => transaction.type === 'REFUND')?.id;
    assert.ok(refundId);
    assert.deepEqual(stateChangedEvent(move, 7, refunded), {
      orderId,
      state: 'Refunded',
      sequence: 7,
      transactionId: refundId,
    });
  });

  test('Complete carries the preimage', () => {
    const move = transition({ from: 'Funded', to: 'Complete', paymentPreimage: 'ab'.repeat(32) });
    assert.equal(eventNeedsStoredOrder(move), false);
    assert.deepEqual(stateChangedEvent(move, 5), {
      orderId,
      state: 'Complete',
      sequence: 5,
      preimage: 'ab'.repeat(32),
    });
  });
});

describe('replayedStateChangedEvent', () => {
  test('a replayed row carries its sequence, and the latest stored transaction of its kind', () => {
    const change = { sequence: 2, state: 'PartiallyFunded' as const, at: 1, cause: MOVE_CAUSE };
    assert.deepEqual(replayedStateChangedEvent(funded, change), {
      orderId,
      state: 'PartiallyFunded',
      sequence: 2,
      transactionId: funded.transactions[1]?.id,
    });
  });

  test('a replayed Complete carries the stored preimage', () => {
    const complete = { ...funded, state: 'Complete' as const, paymentPreimage: 'cd'.repeat(32) };
    const change = { sequence: 4, state: 'Complete' as const, at: 1 };
    assert.deepEqual(replayedStateChangedEvent(complete, change), {
      orderId,
      state: 'Complete',
      sequence: 4,
      preimage: 'cd'.repeat(32),
    });
  });
});

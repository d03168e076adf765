/**
 * Deriving a Bitcoin order from observations of transactions in the node's mempool (`MEMPOOL_BLOCK`): shown,
 * never counted as confirmed; moved back with the cause that says it left the mempool; a claim's preimage
 * recorded at once; a spend that could not be valid before the refund height ignored.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { deriveChainTarget, planChainMoves, type ChainContext } from '../../src/domain/chain-derivation.js';
import {
  MEMPOOL_BLOCK,
  type ChainObservation,
  type ClaimObservation,
  type FundingObservation,
  type RefundObservation,
} from '../../src/domain/chain-observations.js';
import type { OrderRecord, OrderTransaction } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';

const preimage = '22'.repeat(32);
const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
const REFUND_HEIGHT = 500;
const ORDER_ID = '00000000-0000-4000-8000-000000000034';

function order(state: OrderState, transactions: OrderTransaction[] = []): OrderRecord {
  return {
    id: ORDER_ID,
    market: 'BTC_LBTC',
    invoice: 'lnbc-test',
    invoiceHash: 'bb'.repeat(32),
    paymentHash,
    createdAt: 0,
    expiresAt: 600_000,
    state,
    amount: 100n,
    payToAddress: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    htlc: { refundableAtBlockHeight: REFUND_HEIGHT },
    transactions,
  };
}

const block = (height: number) => ({ height, hash: height.toString(16).padStart(64, '0') });
const context = (head: number): ChainContext => ({ chain: 'bitcoin', head: block(head), confirmations: 2 });
const where = (height: number | 'mempool') => (height === 'mempool' ? MEMPOOL_BLOCK : block(height));

function funding(height: number | 'mempool', amount: bigint, txId: string): FundingObservation {
  return { kind: 'funding', orderId: ORDER_ID, txId, position: 65_536, block: where(height), amount, outputIndex: 0 };
}
function claim(height: number | 'mempool', withPreimage = preimage): ClaimObservation {
  return {
    kind: 'claim',
    orderId: ORDER_ID,
    txId: 'c1'.repeat(32),
    position: 65_536,
    block: where(height),
    preimage: withPreimage,
  };
}
function refund(height: number | 'mempool'): RefundObservation {
  return { kind: 'refund', orderId: ORDER_ID, txId: 'e1'.repeat(32), position: 65_536, block: where(height) };
}
const FUND_A = 'a1'.repeat(32);
const FUND_B = 'b1'.repeat(32);

function movesOf(from: OrderRecord, observations: ChainObservation[], head: number) {
  const target = deriveChainTarget(from, observations, context(head));
  return planChainMoves(from, target, observations, context(head))?.map((move) => ({
    to: move.to,
    reason: move.cause.reason,
    txId: move.cause.txId,
    blockHeight: move.cause.blockHeight,
    transaction: move.transaction?.id,
  }));
}

describe('deriving a Bitcoin order from its mempool', () => {
  test('a funding in the mempool is shown, with its transaction and no block, and never counts as confirmed', () => {
    const target = deriveChainTarget(order('WaitingForFundingTx'), [funding('mempool', 100n, FUND_A)], context(10_000));
    assert.equal(target.state, 'WaitingForFundingTxConfirmation');
    assert.deepEqual(target.transactions, [{ type: 'FUND', id: FUND_A, amount: 100n, outputIndex: 0 }]);
    assert.deepEqual(movesOf(order('WaitingForFundingTx'), [funding('mempool', 100n, FUND_A)], 10), [
      {
        to: 'WaitingForFundingTxConfirmation',
        reason: 'fundingSeen',
        txId: FUND_A,
        blockHeight: undefined,
        transaction: FUND_A,
      },
    ]);
  });

  test('a funding gone from the mempool takes the order back as having left it; gone from a block, as reorged', () => {
    const unconfirmed = order('WaitingForFundingTxConfirmation', [
      { type: 'FUND', id: FUND_A, amount: 100n, outputIndex: 0 },
    ]);
    assert.deepEqual(movesOf(unconfirmed, [], 10), [
      {
        to: 'WaitingForFundingTx',
        reason: 'fundingLeftMempool',
        txId: undefined,
        blockHeight: 10,
        transaction: undefined,
      },
    ]);
    const inABlock = order('WaitingForFundingTxConfirmation', [
      { type: 'FUND', id: FUND_A, amount: 100n, outputIndex: 0, blockHeight: 9 },
    ]);
    assert.equal(movesOf(inABlock, [], 10)?.[0]?.reason, 'fundingReorged');
  });

  test('a top-up that leaves the mempool takes the order back to PartiallyFunded, as having left it', () => {
    const topUp = order('WaitingForAdditionalFundingTxConfirmation', [
      { type: 'FUND', id: FUND_A, amount: 60n, outputIndex: 0, blockHeight: 8 },
      { type: 'FUND', id: FUND_B, amount: 40n, outputIndex: 0 },
    ]);
    assert.deepEqual(movesOf(topUp, [funding(8, 60n, FUND_A)], 10), [
      { to: 'PartiallyFunded', reason: 'fundingLeftMempool', txId: undefined, blockHeight: 10, transaction: undefined },
    ]);
  });

  test('a claim in the mempool makes the preimage known at once; the order completes once it confirms', () => {
    const funded = [funding(8, 100n, FUND_A)];
    const seen = deriveChainTarget(order('Funded'), [...funded, claim('mempool')], context(10));
    assert.equal(seen.state, 'Funded');
    assert.equal(seen.paymentPreimage, preimage);
    const wrong = deriveChainTarget(order('Funded'), [...funded, claim('mempool', '33'.repeat(32))], context(10));
    assert.equal(wrong.paymentPreimage, undefined);
    assert.equal(deriveChainTarget(order('Funded'), [...funded, claim(11)], context(12)).state, 'Complete');
  });

  test('a spend in the mempool that is no claim counts only once a refund could be valid in the next block', () => {
    const funded = [funding(8, 100n, FUND_A)];
    const early = deriveChainTarget(order('Funded'), [...funded, refund('mempool')], context(REFUND_HEIGHT - 1));
    assert.equal(early.state, 'Funded');
    assert.deepEqual(
      early.transactions.map((transaction) => transaction.type),
      ['FUND'],
    );
    const due = order('WaitingForRefundTx', [
      { type: 'FUND', id: FUND_A, amount: 100n, outputIndex: 0, blockHeight: 8 },
    ]);
    assert.deepEqual(movesOf(due, [...funded, refund('mempool')], REFUND_HEIGHT), [
      {
        to: 'WaitingForRefundTxConfirmation',
        reason: 'refundSeen',
        txId: 'e1'.repeat(32),
        blockHeight: undefined,
        transaction: 'e1'.repeat(32),
      },
    ]);
    const refunding = order('WaitingForRefundTxConfirmation', [
      { type: 'FUND', id: FUND_A, amount: 100n, outputIndex: 0, blockHeight: 8 },
      { type: 'REFUND', id: 'e1'.repeat(32) },
    ]);
    assert.deepEqual(
      movesOf(refunding, funded, REFUND_HEIGHT)?.map((move) => [move.to, move.reason]),
      [['WaitingForRefundTx', 'refundLeftMempool']],
    );
  });

  test('after the fund window, only a funding in a block moves the order (WaitingForRefundTx has no way back)', () => {
    const elapsed = order('FundWindowElapsed');
    assert.equal(
      deriveChainTarget(elapsed, [funding('mempool', 100n, FUND_A)], context(10)).state,
      'FundWindowElapsed',
    );
    assert.equal(deriveChainTarget(elapsed, [funding(10, 100n, FUND_A)], context(10)).state, 'WaitingForRefundTx');
  });
});

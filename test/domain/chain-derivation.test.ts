import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ChainObservation } from '../../src/domain/chain-observations.js';
import {
  deriveChainTarget,
  pathBetween,
  planChainMoves,
  type ChainContext,
} from '../../src/domain/chain-derivation.js';
import type { OrderRecord } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';

const preimage = '11'.repeat(32);
const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');

function order(state: OrderState, fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    market: 'SETH_LSBTC',
    invoice: 'lnsb-test',
    invoiceHash: 'aa'.repeat(32),
    paymentHash,
    createdAt: 0,
    expiresAt: 600_000,
    state,
    amount: 100n,
    payToAddress: '0x' + '22'.repeat(20),
    htlc: { refundableAtBlockHeight: 500 },
    transactions: [],
    ...fields,
  };
}

const block = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });
const context = (head: number, confirmations = 2): ChainContext => ({
  chain: 'ethereum',
  head: block(head),
  confirmations,
});
function funding(height: number, amount: bigint, txId = `0xf${height}`): ChainObservation {
  return { kind: 'funding', orderId: order('WaitingForFundingTx').id, txId, position: 0, block: block(height), amount, refundHeight: height + 40 };
}
function claim(height: number, withPreimage = preimage): ChainObservation {
  return { kind: 'claim', orderId: order('Funded').id, txId: `0xc${height}`, position: 1, block: block(height), preimage: withPreimage };
}
function refund(height: number): ChainObservation {
  return { kind: 'refund', orderId: order('Funded').id, txId: `0xr${height}`, position: 2, block: block(height) };
}

describe('deriving an order from its chain observations', () => {
  test('a funding is seen at once and counts once it has the confirmations', () => {
    assert.equal(deriveChainTarget(order('WaitingForFundingTx'), [funding(10, 100n)], context(10)).state, 'WaitingForFundingTxConfirmation');
    const funded = deriveChainTarget(order('WaitingForFundingTx'), [funding(10, 100n)], context(11));
    assert.equal(funded.state, 'Funded');
    assert.deepStrictEqual(funded.transactions, [{ type: 'FUND', id: '0xf10', amount: 100n, blockHeight: 10 }]);
    assert.equal(funded.refundableAtBlockHeight, 50, 'the refund height of the first funding event');
  });

  test('below the amount it is partially funded; a top-up waits for its own confirmations', () => {
    const partial = [funding(10, 40n)];
    assert.equal(deriveChainTarget(order('WaitingForFundingTx'), partial, context(12)).state, 'PartiallyFunded');
    const topUp = [...partial, funding(13, 60n)];
    assert.equal(deriveChainTarget(order('PartiallyFunded'), topUp, context(13)).state, 'WaitingForAdditionalFundingTxConfirmation');
    const done = deriveChainTarget(order('WaitingForAdditionalFundingTxConfirmation'), topUp, context(14));
    assert.equal(done.state, 'Funded');
    assert.equal(done.refundableAtBlockHeight, 50, 'the first funding sets the refund height, later ones do not');
  });

  test('a confirmed claim with the right preimage completes the order; a wrong one is ignored', () => {
    const seen = [funding(10, 100n), claim(20)];
    assert.equal(deriveChainTarget(order('Funded'), seen, context(20)).state, 'Funded', 'unconfirmed claims wait');
    const complete = deriveChainTarget(order('Funded'), seen, context(21));
    assert.equal(complete.state, 'Complete');
    assert.equal(complete.paymentPreimage, preimage);
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n), claim(20, '22'.repeat(32))], context(30)).state, 'Funded');
  });

  test('the refund height moves a funded, unclaimed order to WaitingForRefundTx; a refund then to Refunded', () => {
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n)], context(49)).state, 'Funded');
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n)], context(50)).state, 'WaitingForRefundTx');
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n), claim(50)], context(50)).state, 'Funded', 'a claim in the chain, not yet confirmed: no refund');
    const refunded = [funding(10, 100n), refund(51)];
    assert.equal(deriveChainTarget(order('WaitingForRefundTx'), refunded, context(51)).state, 'WaitingForRefundTxConfirmation');
    const final = deriveChainTarget(order('WaitingForRefundTxConfirmation'), refunded, context(52));
    assert.equal(final.state, 'Refunded');
    assert.deepStrictEqual(final.transactions.map((transaction) => transaction.type), ['FUND', 'REFUND']);
  });

  test('funds after the fund window are shown and refundable; a blacklisted order waits for its admin refund', () => {
    const late = deriveChainTarget(order('FundWindowElapsed'), [funding(10, 100n)], context(10));
    assert.equal(late.state, 'WaitingForRefundTx');
    assert.equal(late.transactions.length, 1);
    assert.equal(deriveChainTarget(order('AddressBlacklistedWaitingForRefundTx'), [funding(10, 100n)], context(20)).state, 'AddressBlacklistedWaitingForRefundTx');
    assert.equal(deriveChainTarget(order('AddressBlacklistedWaitingForRefundTx'), [funding(10, 100n), refund(15)], context(20)).state, 'Refunded');
  });

  test('funding gone after a reorg moves the order back, and the moves say so', () => {
    const funded = order('Funded', { transactions: [{ type: 'FUND', id: '0xf10', amount: 100n, blockHeight: 10 }] });
    const target = deriveChainTarget(funded, [], context(9));
    assert.equal(target.state, 'WaitingForFundingTx');
    assert.deepStrictEqual(target.transactions, []);
    const moves = planChainMoves(funded, target, [], context(9));
    assert.deepStrictEqual(moves?.map((move) => [move.from, move.to, move.cause.reason]), [['Funded', 'WaitingForFundingTx', 'fundingReorged']]);
  });

  test('one transaction funding twice is one FUND transaction with the sum', () => {
    const twice = [funding(10, 30n, '0xaa'), { ...funding(10, 20n, '0xaa'), position: 5 }];
    assert.deepStrictEqual(deriveChainTarget(order('WaitingForFundingTx'), twice, context(20)).transactions, [
      { type: 'FUND', id: '0xaa', amount: 50n, blockHeight: 10 },
    ]);
  });
});

describe('paths through the state table', () => {
  test('goes through the confirmation states and never through a state only its own rule may enter', () => {
    assert.deepStrictEqual(pathBetween('WaitingForFundingTx', 'Funded'), ['WaitingForFundingTxConfirmation', 'Funded']);
    assert.deepStrictEqual(pathBetween('Funded', 'Refunded'), ['WaitingForRefundTx', 'WaitingForRefundTxConfirmation', 'Refunded']);
    const path = pathBetween('WaitingForFundingTx', 'Refunded') ?? [];
    assert.ok(!path.includes('AddressBlacklistedWaitingForRefundTx'));
    assert.equal(pathBetween('Complete', 'Funded'), undefined);
  });

  test('every move of a plan carries a chain cause with its block', () => {
    const observations = [funding(10, 100n)];
    const target = deriveChainTarget(order('WaitingForFundingTx'), observations, context(11));
    const moves = planChainMoves(order('WaitingForFundingTx'), target, observations, context(11)) ?? [];
    assert.deepStrictEqual(
      moves.map((move) => [move.to, move.cause.reason, move.cause.txId, move.cause.blockHeight]),
      [
        ['WaitingForFundingTxConfirmation', 'fundingSeen', '0xf10', 10],
        ['Funded', 'fundingConfirmed', '0xf10', 10],
      ],
    );
    assert.equal(moves[1]?.transaction?.id, '0xf10');
  });
});

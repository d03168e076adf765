import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { MEMPOOL_BLOCK, type FundingObservation } from '../../src/domain/chain-observations.js';
import { deriveChainTarget, planChainMoves, type ChainContext } from '../../src/domain/chain-derivation.js';
import { ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import type { OrderRecord } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';

const paymentHash = createHash('sha256').update(Buffer.alloc(32, 0x11)).digest('hex');
const CLAIMER = '0x' + 'c1'.repeat(20);
const USER = '0x' + '01'.repeat(20);
/** The order's fund window ends here, in milliseconds since the epoch. */
const EXPIRES_AT = 1_800_000_000_000;

function order(market: 'SETH_LSBTC' | 'SBTC_LSBTC', state: OrderState = 'WaitingForFundingTx'): OrderRecord {
  return {
    id: '00000000-0000-4000-8000-00000000e0e0',
    market,
    invoice: 'lnsb-test',
    invoiceHash: 'aa'.repeat(32),
    paymentHash,
    createdAt: EXPIRES_AT - 600_000,
    expiresAt: EXPIRES_AT,
    state,
    amount: 100n,
    payToAddress: market === 'SETH_LSBTC' ? '0x' + '22'.repeat(20) : 'bcrt1qexample',
    htlc: { refundableAtBlockHeight: 500 },
    transactions: [],
    ...(market === 'SETH_LSBTC' ? { claimAddress: CLAIMER } : {}),
  };
}

const block = (height: number, timestamp?: number) => ({
  height,
  hash: `0x${height.toString(16).padStart(64, '0')}`,
  ...(timestamp === undefined ? {} : { timestamp }),
});

/** The whole amount in block 10 (mined at `timestamp`), or in the mempool. */
function funding(where: ReturnType<typeof block> | typeof MEMPOOL_BLOCK, chain: 'ethereum' | 'bitcoin') {
  const slot = chain === 'ethereum' ? { funder: USER, claimer: CLAIMER, token: ZERO_ADDRESS, paymentHash } : {};
  const observation: FundingObservation = {
    kind: 'funding',
    orderId: order('SETH_LSBTC').id,
    txId: chain === 'ethereum' ? '0xf10' : 'f1'.repeat(32),
    position: 0,
    block: where,
    amount: 100n,
    refundHeight: 50,
    ...(chain === 'bitcoin' ? { outputIndex: 0 } : {}),
    ...slot,
  };
  return observation;
}

function ethereumContext(headTimestamp: number): ChainContext {
  return { chain: 'ethereum', head: block(11, headTimestamp), confirmations: 2, sightedBy: headTimestamp };
}

/** The states the moves pass through, with the reason each gives. */
function movesOf(record: OrderRecord, observations: FundingObservation[], context: ChainContext) {
  const target = deriveChainTarget(record, observations, context);
  return planChainMoves(record, target, observations, context)?.map((move) => [move.to, move.cause.reason]);
}

describe('the fund window judged by the chain', () => {
  test('Ethereum: a funding mined 400 ms before the window ends is in time, whenever the service reads it', () => {
    const record = order('SETH_LSBTC');
    const inTime = funding(block(10, EXPIRES_AT - 400), 'ethereum');
    // Read a minute after the window ended: its block's timestamp decides.
    const context = ethereumContext(EXPIRES_AT + 60_000);
    assert.equal(deriveChainTarget(record, [inTime], context).state, 'Funded');
    assert.deepEqual(movesOf(record, [inTime], context), [
      ['WaitingForFundingTxConfirmation', 'fundingSeen'],
      ['Funded', 'fundingConfirmed'],
    ]);
    const atTheEdge = funding(block(10, EXPIRES_AT), 'ethereum');
    assert.equal(deriveChainTarget(record, [atTheEdge], context).state, 'Funded');
  });

  test('Ethereum: a funding mined after the window ends goes by FundWindowElapsed to a refund', () => {
    const record = order('SETH_LSBTC');
    const late = funding(block(10, EXPIRES_AT + 1_000), 'ethereum');
    const context = ethereumContext(EXPIRES_AT + 1_000);
    const target = deriveChainTarget(record, [late], context);
    assert.equal(target.state, 'WaitingForRefundTx');
    assert.equal(target.fundedLate, true);
    assert.deepEqual(movesOf(record, [late], context), [
      ['FundWindowElapsed', 'fundingLate'],
      ['WaitingForRefundTx', 'fundingSeen'],
    ]);
  });

  test('Ethereum: a block without a timestamp counts in time; only a waiting order is judged', () => {
    const context = ethereumContext(EXPIRES_AT + 60_000);
    const untimed = funding(block(10), 'ethereum');
    assert.equal(deriveChainTarget(order('SETH_LSBTC'), [untimed], context).state, 'Funded');
    // Already seen in time: a top-up or a confirmation after the window changes nothing of that.
    const seen = order('SETH_LSBTC', 'WaitingForFundingTxConfirmation');
    const late = funding(block(10, EXPIRES_AT + 5_000), 'ethereum');
    assert.equal(deriveChainTarget(seen, [late], context).state, 'Funded');
  });

  test('Bitcoin: judged by the last read of the node that did not see the funding, not by block times', () => {
    const record = order('SBTC_LSBTC');
    const mined = funding(block(10, EXPIRES_AT - 3_600_000), 'bitcoin');
    const bitcoin = (sightedBy: number): ChainContext => ({
      chain: 'bitcoin',
      head: block(11),
      confirmations: 2,
      sightedBy,
    });
    assert.equal(deriveChainTarget(record, [mined], bitcoin(EXPIRES_AT - 400)).state, 'Funded');
    // A miner's timestamp an hour early does not make a funding first seen after the window in time.
    assert.equal(deriveChainTarget(record, [mined], bitcoin(EXPIRES_AT + 400)).state, 'WaitingForRefundTx');
    const unconfirmed = funding(MEMPOOL_BLOCK, 'bitcoin');
    assert.equal(
      deriveChainTarget(record, [unconfirmed], bitcoin(EXPIRES_AT - 400)).state,
      'WaitingForFundingTxConfirmation',
    );
    // Late in the mempool: elapsed, and no refund to wait for until it is mined (a mempool sighting can vanish).
    assert.deepEqual(movesOf(record, [unconfirmed], bitcoin(EXPIRES_AT + 400)), [['FundWindowElapsed', 'fundingLate']]);
  });
});

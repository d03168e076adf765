import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ClaimObservation, FundingObservation, RefundObservation } from '../../src/domain/chain-observations.js';
import {
  deriveChainTarget,
  pathBetween,
  planChainMoves,
  type ChainContext,
} from '../../src/domain/chain-derivation.js';
import { ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import type { OrderRecord } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';

const preimage = '11'.repeat(32);
const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
const CLAIMER = '0x' + 'c1'.repeat(20);
const USER = '0x' + '01'.repeat(20);
const SECOND_ACCOUNT = '0x' + '02'.repeat(20);
const ATTACKER = '0x' + 'ee'.repeat(20);

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
    claimAddress: CLAIMER,
    ...fields,
  };
}

const block = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });
const context = (head: number, confirmations = 2): ChainContext => ({
  chain: 'ethereum',
  head: block(head),
  confirmations,
});
/** A funding of the user's slot with the order's terms, unless `slot` says otherwise; the slot's refund height is 50. */
function funding(
  height: number,
  amount: bigint,
  txId = `0xf${height}`,
  slot: Partial<FundingObservation> = {},
): FundingObservation {
  return {
    kind: 'funding',
    orderId: order('WaitingForFundingTx').id,
    txId,
    position: 0,
    block: block(height),
    amount,
    refundHeight: 50,
    funder: USER,
    claimer: CLAIMER,
    token: ZERO_ADDRESS,
    paymentHash,
    ...slot,
  };
}
function claim(height: number, withPreimage = preimage, funder = USER): ClaimObservation {
  return {
    kind: 'claim',
    orderId: order('Funded').id,
    txId: `0xc${height}`,
    position: 1,
    block: block(height),
    preimage: withPreimage,
    funder,
  };
}
function refund(height: number, funder = USER, fields: Partial<RefundObservation> = {}): RefundObservation {
  return {
    kind: 'refund',
    orderId: order('Funded').id,
    txId: `0xr${height}${funder.slice(2, 4)}`,
    position: 2,
    block: block(height),
    funder,
    ...fields,
  };
}

describe('deriving an order from its chain observations', () => {
  test('a funding is seen at once and counts once it has the confirmations', () => {
    assert.equal(
      deriveChainTarget(order('WaitingForFundingTx'), [funding(10, 100n)], context(10)).state,
      'WaitingForFundingTxConfirmation',
    );
    const funded = deriveChainTarget(order('WaitingForFundingTx'), [funding(10, 100n)], context(11));
    assert.equal(funded.state, 'Funded');
    assert.deepStrictEqual(funded.transactions, [{ type: 'FUND', id: '0xf10', amount: 100n, blockHeight: 10 }]);
    assert.equal(funded.refundableAtBlockHeight, 50, 'the refund height of the first funding event');
  });

  test('below the amount it is partially funded; a top-up waits for its own confirmations', () => {
    const partial = [funding(10, 40n)];
    assert.equal(deriveChainTarget(order('WaitingForFundingTx'), partial, context(12)).state, 'PartiallyFunded');
    const topUp = [...partial, funding(13, 60n)];
    assert.equal(
      deriveChainTarget(order('PartiallyFunded'), topUp, context(13)).state,
      'WaitingForAdditionalFundingTxConfirmation',
    );
    const done = deriveChainTarget(order('WaitingForAdditionalFundingTxConfirmation'), topUp, context(14));
    assert.equal(done.state, 'Funded');
    assert.equal(done.refundableAtBlockHeight, 50, "a top-up keeps its slot's refund height");
  });

  test('a confirmed claim with the right preimage completes the order; a wrong one is ignored', () => {
    const seen = [funding(10, 100n), claim(20)];
    assert.equal(deriveChainTarget(order('Funded'), seen, context(20)).state, 'Funded', 'unconfirmed claims wait');
    const complete = deriveChainTarget(order('Funded'), seen, context(21));
    assert.equal(complete.state, 'Complete');
    assert.equal(complete.paymentPreimage, preimage);
    assert.equal(
      deriveChainTarget(order('Funded'), [funding(10, 100n), claim(20, '22'.repeat(32))], context(30)).state,
      'Funded',
    );
  });

  test('the refund height moves a funded, unclaimed order to WaitingForRefundTx; a refund then to Refunded', () => {
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n)], context(49)).state, 'Funded');
    assert.equal(deriveChainTarget(order('Funded'), [funding(10, 100n)], context(50)).state, 'WaitingForRefundTx');
    assert.equal(
      deriveChainTarget(order('Funded'), [funding(10, 100n), claim(50)], context(50)).state,
      'Funded',
      'a claim in the chain, not yet confirmed: no refund',
    );
    const refunded = [funding(10, 100n), refund(51)];
    assert.equal(
      deriveChainTarget(order('WaitingForRefundTx'), refunded, context(51)).state,
      'WaitingForRefundTxConfirmation',
    );
    const final = deriveChainTarget(order('WaitingForRefundTxConfirmation'), refunded, context(52));
    assert.equal(final.state, 'Refunded');
    assert.deepStrictEqual(
      final.transactions.map((transaction) => transaction.type),
      ['FUND', 'REFUND'],
    );
  });

  test('funds after the fund window are shown and refundable; a blacklisted order waits for its admin refund', () => {
    const late = deriveChainTarget(order('FundWindowElapsed'), [funding(10, 100n)], context(10));
    assert.equal(late.state, 'WaitingForRefundTx');
    assert.equal(late.transactions.length, 1);
    assert.equal(
      deriveChainTarget(order('AddressBlacklistedWaitingForRefundTx'), [funding(10, 100n)], context(20)).state,
      'AddressBlacklistedWaitingForRefundTx',
    );
    const adminRefunded = [funding(10, 100n), refund(15, USER, { byAdmin: true })];
    const blacklisted = order('AddressBlacklistedWaitingForRefundTx');
    const target = deriveChainTarget(blacklisted, adminRefunded, context(20));
    assert.equal(target.state, 'Refunded');
    const moves = planChainMoves(blacklisted, target, adminRefunded, context(20)) ?? [];
    assert.deepStrictEqual(
      moves.map((move) => [move.to, move.cause.reason, move.cause.txId]),
      [
        ['WaitingForRefundTxConfirmation', 'adminRefundSeen', adminRefunded[1]?.txId],
        ['Refunded', 'adminRefundConfirmed', adminRefunded[1]?.txId],
      ],
    );
  });

  test('funding gone after a reorg moves the order back, and the moves say so', () => {
    const funded = order('Funded', { transactions: [{ type: 'FUND', id: '0xf10', amount: 100n, blockHeight: 10 }] });
    const target = deriveChainTarget(funded, [], context(9));
    assert.equal(target.state, 'WaitingForFundingTx');
    assert.deepStrictEqual(target.transactions, []);
    const moves = planChainMoves(funded, target, [], context(9));
    assert.deepStrictEqual(
      moves?.map((move) => [move.from, move.to, move.cause.reason]),
      [['Funded', 'WaitingForFundingTx', 'fundingReorged']],
    );
  });

  test('one transaction funding twice is one FUND transaction with the sum', () => {
    const twice = [funding(10, 30n, '0xaa'), { ...funding(10, 20n, '0xaa'), position: 5 }];
    assert.deepStrictEqual(deriveChainTarget(order('WaitingForFundingTx'), twice, context(20)).transactions, [
      { type: 'FUND', id: '0xaa', amount: 50n, blockHeight: 10 },
    ]);
  });
});

describe("Ethereum slots: only those with the order's payment hash, claimer and asset count", () => {
  const foreignSlots: [string, Partial<FundingObservation>][] = [
    ['another payment hash', { paymentHash: '99'.repeat(32) }],
    ['another claimer', { claimer: '0x' + 'bb'.repeat(20) }],
    ['another asset', { token: '0x' + '70'.repeat(20) }],
    ['no slot named', { funder: undefined }],
  ];
  for (const [label, terms] of foreignSlots) {
    test(`a slot with ${label} is foreign: it moves nothing and sets no refund height`, () => {
      const foreign = { ...funding(10, 100n, '0xbad', { funder: ATTACKER, refundHeight: 30 }), ...terms };
      const target = deriveChainTarget(order('WaitingForFundingTx'), [foreign], context(20));
      assert.equal(target.state, 'WaitingForFundingTx');
      assert.deepStrictEqual(target.transactions, []);
      assert.equal(target.refundableAtBlockHeight, 500, "the order's own estimate");
    });
  }

  test("a wrong-hash slot first and the user's funding later: only the user's counts", () => {
    const observations = [
      funding(10, 100n, '0xbad', { funder: ATTACKER, paymentHash: '99'.repeat(32), refundHeight: 30 }),
      funding(12, 100n, '0xgood', { refundHeight: 52 }),
    ];
    const target = deriveChainTarget(order('WaitingForFundingTx'), observations, context(14));
    assert.equal(target.state, 'Funded');
    assert.deepStrictEqual(target.transactions, [{ type: 'FUND', id: '0xgood', amount: 100n, blockHeight: 12 }]);
    assert.equal(target.refundableAtBlockHeight, 52);
    const moves = planChainMoves(order('WaitingForFundingTx'), target, observations, context(14)) ?? [];
    assert.ok(
      moves.every((move) => move.cause.txId === '0xgood'),
      'no move names the foreign funding',
    );
  });

  test("claims and refunds of a foreign slot are not the order's", () => {
    const foreign = { funder: ATTACKER, claimer: '0x' + 'bb'.repeat(20) };
    const observations = [
      funding(10, 100n),
      funding(11, 5n, '0xbad', foreign),
      claim(12, preimage, ATTACKER),
      refund(13, ATTACKER),
    ];
    const target = deriveChainTarget(order('Funded'), observations, context(20));
    assert.equal(target.state, 'Funded');
    assert.equal(target.paymentPreimage, undefined);
    assert.deepStrictEqual(
      target.transactions.map((transaction) => transaction.id),
      ['0xf10'],
    );
  });

  test('a token order counts only slots in its token, an ether slot is foreign; an unknown asset counts none', () => {
    const TOKEN = '0x' + '70'.repeat(20);
    const tokenAsset = {
      ticker: 'SUSDC',
      chain: 'ethereum',
      network: 'simnet',
      decimals: 6,
      tokenAddress: TOKEN,
    } as const;
    const tokenContext = { ...context(20), assetOf: () => tokenAsset };
    const etherSlot = funding(10, 100n, '0xeth', { funder: ATTACKER });
    const tokenSlot = funding(11, 100n, '0xtoken', { token: TOKEN });
    const target = deriveChainTarget(order('WaitingForFundingTx'), [etherSlot, tokenSlot], tokenContext);
    assert.equal(target.state, 'Funded');
    assert.deepStrictEqual(
      target.transactions.map((transaction) => transaction.id),
      ['0xtoken'],
    );
    const unknown = { ...context(20), assetOf: () => undefined };
    assert.equal(
      deriveChainTarget(order('WaitingForFundingTx'), [etherSlot, tokenSlot], unknown).state,
      'WaitingForFundingTx',
    );
  });

  test('an order without a claimer (imported) counts no slot', () => {
    const imported = order('WaitingForFundingTx', { claimAddress: undefined });
    assert.equal(deriveChainTarget(imported, [funding(10, 100n)], context(20)).state, 'WaitingForFundingTx');
  });

  test("matching slots of several funders do not add up to Funded: the principal slot alone does; the refund height is the latest slot's", () => {
    const observations = [funding(10, 40n), funding(15, 60n, '0xf15', { funder: SECOND_ACCOUNT, refundHeight: 55 })];
    assert.equal(
      deriveChainTarget(order('WaitingForFundingTx'), observations.slice(0, 1), context(12)).state,
      'PartiallyFunded',
    );
    const target = deriveChainTarget(order('PartiallyFunded'), observations, context(16));
    assert.equal(target.state, 'PartiallyFunded', '40 + 60 from two accounts: no one slot pays the order');
    assert.equal(target.refundableAtBlockHeight, 55);
    assert.equal(
      deriveChainTarget(order('PartiallyFunded'), observations, context(54)).state,
      'PartiallyFunded',
      'the second slot is not refundable yet',
    );
    assert.equal(deriveChainTarget(order('PartiallyFunded'), observations, context(55)).state, 'WaitingForRefundTx');
    const toppedUp = [...observations, funding(17, 40n, '0xf17', { funder: SECOND_ACCOUNT })];
    assert.equal(
      deriveChainTarget(order('PartiallyFunded'), toppedUp, context(17)).state,
      'WaitingForAdditionalFundingTxConfirmation',
    );
    assert.equal(
      deriveChainTarget(order('PartiallyFunded'), toppedUp, context(18)).state,
      'Funded',
      'a top-up of the principal slot to the amount funds the order',
    );
  });

  test("a stranger's dust slot opened after the user's moves neither the refund height nor the state, and stays out of the transactions", () => {
    const observations = [
      funding(10, 100n, '0xuser', { refundHeight: 50 }),
      funding(20, 1n, '0xwei', { funder: ATTACKER, refundHeight: 60 }),
    ];
    const target = deriveChainTarget(order('Funded'), observations, context(30));
    assert.equal(target.state, 'Funded');
    assert.equal(target.refundableAtBlockHeight, 50);
    assert.deepStrictEqual(
      target.transactions.map((transaction) => transaction.id),
      ['0xuser'],
    );
    assert.equal(
      deriveChainTarget(order('Funded'), observations, context(50)).state,
      'WaitingForRefundTx',
      "the user's slot is refundable at its own height",
    );
    const refunded = [...observations, refund(51, USER, { amount: 100n })];
    assert.equal(
      deriveChainTarget(order('WaitingForRefundTxConfirmation'), refunded, context(52)).state,
      'Refunded',
      'the dust left behind holds nothing back',
    );
  });

  test('a slot of a tenth of the amount carries the order: its later refund height counts while it holds money', () => {
    const observations = [
      funding(10, 90n, '0xuser', { refundHeight: 50 }),
      funding(20, 10n, '0xtenth', { funder: SECOND_ACCOUNT, refundHeight: 60 }),
    ];
    assert.equal(deriveChainTarget(order('PartiallyFunded'), observations, context(30)).refundableAtBlockHeight, 60);
    const secondRefunded = [...observations, refund(61, SECOND_ACCOUNT, { amount: 10n })];
    assert.equal(
      deriveChainTarget(order('WaitingForRefundTx'), secondRefunded, context(62)).refundableAtBlockHeight,
      50,
      'a refunded slot holds no one back',
    );
    const nine = [
      funding(10, 90n, '0xuser', { refundHeight: 50 }),
      funding(20, 9n, '0xnine', { funder: SECOND_ACCOUNT, refundHeight: 60 }),
    ];
    assert.equal(
      deriveChainTarget(order('PartiallyFunded'), nine, context(30)).refundableAtBlockHeight,
      50,
      'one base unit under a tenth is dust',
    );
  });

  test("the 1-wei first funder is one slot among others: the user's funding still funds the order", () => {
    const observations = [
      funding(10, 1n, '0xwei', { funder: ATTACKER }),
      funding(11, 100n, '0xuser', { refundHeight: 51 }),
    ];
    const target = deriveChainTarget(order('WaitingForFundingTx'), observations, context(13));
    assert.equal(target.state, 'Funded');
    assert.equal(target.refundableAtBlockHeight, 51);
  });

  test('each slot is refunded on its own; the order is Refunded once every matching slot is', () => {
    const fundings = [funding(10, 40n), funding(11, 60n, '0xf11', { funder: SECOND_ACCOUNT })];
    const first = refund(52, USER, { amount: 40n });
    const partly = deriveChainTarget(order('WaitingForRefundTx'), [...fundings, first], context(60));
    assert.equal(partly.state, 'WaitingForRefundTx');
    assert.deepStrictEqual(partly.transactions.at(-1), {
      type: 'REFUND',
      id: first.txId,
      amount: 40n,
      blockHeight: 52,
    });
    const second = refund(58, SECOND_ACCOUNT, { amount: 60n });
    const both = [...fundings, first, second];
    assert.equal(
      deriveChainTarget(order('WaitingForRefundTx'), both, context(58)).state,
      'WaitingForRefundTxConfirmation',
    );
    const refunded = deriveChainTarget(order('WaitingForRefundTx'), both, context(60));
    assert.equal(refunded.state, 'Refunded');
    const moves = planChainMoves(order('WaitingForRefundTx'), refunded, both, context(60)) ?? [];
    assert.deepStrictEqual(moves.at(-1)?.transaction, {
      type: 'REFUND',
      id: second.txId,
      amount: 60n,
      blockHeight: 58,
    });
  });

  test('a claim of one matching slot completes the order', () => {
    const observations = [
      funding(10, 40n),
      funding(11, 60n, '0xf11', { funder: SECOND_ACCOUNT }),
      claim(20, preimage, SECOND_ACCOUNT),
    ];
    const target = deriveChainTarget(order('Funded'), observations, context(22));
    assert.equal(target.state, 'Complete');
    assert.equal(target.paymentPreimage, preimage);
  });
});

describe('paths through the state table', () => {
  test('goes through the confirmation states and never through a state only its own rule may enter', () => {
    assert.deepStrictEqual(pathBetween('WaitingForFundingTx', 'Funded'), ['WaitingForFundingTxConfirmation', 'Funded']);
    assert.deepStrictEqual(pathBetween('Funded', 'Refunded'), [
      'WaitingForRefundTx',
      'WaitingForRefundTxConfirmation',
      'Refunded',
    ]);
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

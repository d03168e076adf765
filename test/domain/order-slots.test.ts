import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ClaimObservation, FundingObservation, RefundObservation } from '../../src/domain/chain-observations.js';
import { ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import type { OrderRecord } from '../../src/domain/order.js';
import { DUST_DIVISOR, fundingSlots, orderSlots, slotOfFunder } from '../../src/domain/order-slots.js';

const preimage = '11'.repeat(32);
const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
const CLAIMER = '0x' + 'c1'.repeat(20);
const USER = '0x' + '01'.repeat(20);
const SECOND = '0x' + '02'.repeat(20);
const STRANGER = '0x' + 'ee'.repeat(20);
const ORDER_ID = '00000000-0000-4000-8000-000000000001';

const order: OrderRecord = {
  id: ORDER_ID,
  market: 'SETH_LSBTC',
  invoice: 'lnsb-test',
  invoiceHash: 'aa'.repeat(32),
  paymentHash,
  createdAt: 0,
  expiresAt: 600_000,
  state: 'WaitingForFundingTx',
  amount: 1_000n,
  payToAddress: '0x' + '22'.repeat(20),
  htlc: { refundableAtBlockHeight: 500 },
  transactions: [],
  claimAddress: CLAIMER,
};

const block = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });
function funding(
  funder: string,
  height: number,
  amount: bigint,
  fields: Partial<FundingObservation> = {},
): FundingObservation {
  return {
    kind: 'funding',
    orderId: ORDER_ID,
    txId: `0xf${height}${funder.slice(2, 4)}`,
    position: 0,
    block: block(height),
    amount,
    refundHeight: height + 40,
    funder,
    claimer: CLAIMER,
    token: ZERO_ADDRESS,
    paymentHash,
    ...fields,
  };
}
function refund(funder: string, height: number, amount: bigint): RefundObservation {
  return { kind: 'refund', orderId: ORDER_ID, txId: `0xr${height}`, position: 1, block: block(height), amount, funder };
}
function claim(funder: string, height: number, withPreimage = preimage): ClaimObservation {
  return {
    kind: 'claim',
    orderId: ORDER_ID,
    txId: `0xc${height}`,
    position: 2,
    block: block(height),
    preimage: withPreimage,
    amount: 1_000n,
    funder,
  };
}

describe('the slots of an Ethereum order', () => {
  test('the principal is the slot holding the most, whoever funded first', () => {
    const slots = orderSlots(
      order,
      [funding(STRANGER, 10, 1n), funding(USER, 11, 600n), funding(SECOND, 12, 400n)],
      'ethereum',
    );
    assert.deepStrictEqual(
      slots.map((slot) => [slot.funder, slot.role, slot.funded]),
      [
        [USER, 'principal', 600n],
        [STRANGER, 'dust', 1n],
        [SECOND, 'order', 400n],
      ],
    );
  });

  test('a tie goes to the earliest first funding: block height, then position in the block', () => {
    const byHeight = orderSlots(order, [funding(SECOND, 12, 500n), funding(USER, 11, 500n)], 'ethereum');
    assert.equal(byHeight[0]?.funder, USER);
    const byPosition = orderSlots(
      order,
      [funding(SECOND, 11, 500n, { position: 3 }), funding(USER, 11, 500n, { position: 7 })],
      'ethereum',
    );
    assert.equal(byPosition[0]?.funder, SECOND);
  });

  test('a top-up counts toward its slot: the slot funded in two calls overtakes a larger single funding', () => {
    const slots = orderSlots(
      order,
      [funding(USER, 10, 300n), funding(SECOND, 11, 500n), funding(USER, 12, 300n)],
      'ethereum',
    );
    assert.equal(slots[0]?.funder, USER);
    assert.equal(slots[0]?.funded, 600n);
    assert.equal(slots[0]?.refundHeight, 50, "a slot's refund height is its first funding's");
  });

  test('dust is below a tenth of the amount: exactly a tenth carries the order, one base unit less does not', () => {
    assert.equal(DUST_DIVISOR, 10n);
    const atTenth = orderSlots(order, [funding(USER, 10, 900n), funding(SECOND, 11, 100n)], 'ethereum');
    assert.equal(slotOfFunder(atTenth, SECOND)?.role, 'order');
    const below = orderSlots(order, [funding(USER, 10, 900n), funding(SECOND, 11, 99n)], 'ethereum');
    assert.equal(slotOfFunder(below, SECOND)?.role, 'dust');
    assert.deepStrictEqual(
      fundingSlots(below).map((slot) => slot.funder),
      [USER],
    );
    const oddAmount = { ...order, amount: 1_001n };
    assert.equal(
      slotOfFunder(orderSlots(oddAmount, [funding(USER, 10, 900n), funding(SECOND, 11, 100n)], 'ethereum'), SECOND)
        ?.role,
      'dust',
      '100 is less than a tenth of 1,001',
    );
  });

  test('a lone slot is the principal however small; a non-matching slot is no slot at all', () => {
    const lone = orderSlots(order, [funding(STRANGER, 10, 1n)], 'ethereum');
    assert.deepStrictEqual(
      lone.map((slot) => slot.role),
      ['principal'],
    );
    const foreign = orderSlots(
      order,
      [funding(USER, 10, 900n), funding(STRANGER, 11, 5_000n, { claimer: STRANGER })],
      'ethereum',
    );
    assert.deepStrictEqual(
      foreign.map((slot) => slot.funder),
      [USER],
    );
  });

  test('what a slot holds, and whether it was refunded or claimed', () => {
    const slots = orderSlots(
      order,
      [funding(USER, 10, 900n), funding(SECOND, 11, 300n), refund(SECOND, 60, 300n), claim(USER, 20)],
      'ethereum',
    );
    const user = slotOfFunder(slots, USER.toUpperCase().replace('0X', '0x'));
    assert.equal(user?.claimed, true);
    assert.equal(user?.held, 0n);
    const second = slotOfFunder(slots, SECOND);
    assert.equal(second?.refunded, true);
    assert.equal(second?.held, 0n);
    assert.equal(
      second?.funded,
      300n,
      'what a slot was funded with stays, so the principal does not change on a refund',
    );
    const wrongPreimage = orderSlots(order, [funding(USER, 10, 900n), claim(USER, 20, '22'.repeat(32))], 'ethereum');
    assert.equal(
      wrongPreimage[0]?.claimed,
      false,
      'a claim whose preimage does not open the payment hash claims nothing',
    );
    assert.equal(wrongPreimage[0]?.held, 900n);
  });

  test('a Bitcoin order has no slots', () => {
    assert.deepStrictEqual(orderSlots({ ...order, market: 'BTC_LBTC' }, [funding(USER, 10, 900n)], 'bitcoin'), []);
  });
});

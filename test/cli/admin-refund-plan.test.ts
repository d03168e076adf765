import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { baseUnitsText, planAdminRefund, weiText, type OpenSlot } from '../../src/cli/admin-refund-plan.js';
import { findMarket } from '../../src/domain/markets.js';

const address = (digit: string) => `0x${digit.repeat(40)}`;
const PRINCIPAL: OpenSlot = { funder: address('1'), role: 'principal', amount: 600n };
const SECOND: OpenSlot = { funder: address('2'), role: 'order', amount: 400n };
const DUST: OpenSlot = { funder: address('3'), role: 'dust', amount: 1n };
const OPEN = [PRINCIPAL, SECOND, DUST];

describe('planAdminRefund', () => {
  test("by default refunds the order's own slots and skips dust, saying why", () => {
    assert.deepEqual(planAdminRefund(OPEN, { kind: 'order' }), {
      refund: [PRINCIPAL, SECOND],
      skip: [{ ...DUST, reason: "dust: under a tenth of the order's amount" }],
      unknownFunders: [],
    });
  });

  test('--funder refunds exactly the named funders, in any case, dust or not; a funder without an open slot is named', () => {
    const plan = planAdminRefund(OPEN, { kind: 'funders', funders: [address('3'), address('A'), address('a')] });
    assert.deepEqual(plan.refund, [DUST]);
    assert.deepEqual(
      plan.skip.map((slot) => [slot.funder, slot.reason]),
      [
        [PRINCIPAL.funder, 'not named by --funder'],
        [SECOND.funder, 'not named by --funder'],
      ],
    );
    assert.deepEqual(plan.unknownFunders, [address('a')]);
  });

  test('--all refunds every open slot and skips none', () => {
    assert.deepEqual(planAdminRefund(OPEN, { kind: 'all' }), { refund: OPEN, skip: [], unknownFunders: [] });
  });

  test('amounts read in wei for ether and in base units of the token for a token; fees in wei and ether', () => {
    assert.equal(baseUnitsText(600n, findMarket('SETH_LSBTC')!.onchain), '600 wei');
    const token = {
      ticker: 'SUSDC',
      chain: 'ethereum',
      network: 'simnet',
      decimals: 6,
      tokenAddress: address('b'),
    } as const;
    assert.equal(baseUnitsText(1n, token), '1 base units of SUSDC');
    assert.equal(weiText(98_793_750_000_000n), '98793750000000 wei (0.00009879375 ETH)');
  });
});

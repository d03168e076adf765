import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveRefundDetails, type BitcoinRefundDetails } from '../../src/domain/refund.js';
import {
  BTC_LBTC,
  ETH_LBTC,
  SWAP_CONTRACT,
  CHAINS,
  FIRST_FUND,
  SECOND_FUND,
  redeemScript,
  bitcoinOrder,
  ethereumOrder,
} from '../support/domain/order-fixtures.js';

describe('deriveRefundDetails for a Bitcoin order', () => {
  test('lists every FUND output as a UTXO and sums what is locked', () => {
    assert.deepEqual(deriveRefundDetails(bitcoinOrder(), BTC_LBTC, CHAINS), {
      market: 'BTC_LBTC',
      type: 'TimelockRefund',
      state: 'PartiallyFunded',
      blocksRemaining: 83,
      refundableAtBlockHeight: 612_183,
      refundableBalance: 35_590n,
      details: {
        refundAddress: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
        redeemScript,
        currentBlockHeight: 612_100,
        feeTokensPerVirtualByte: 12,
        utxos: [
          { txId: 'aa'.repeat(32), index: 1, tokens: 20_000n },
          { txId: 'bb'.repeat(32), index: 0, tokens: 15_590n },
        ],
      },
    });
  });

  test('never counts blocks below zero once the timelock has passed', () => {
    const chains = { ...CHAINS, bitcoin: { blockHeight: 612_500, feeTokensPerVirtualByte: 3 } };
    const refund = deriveRefundDetails(bitcoinOrder({ state: 'WaitingForRefundTx' }), BTC_LBTC, chains);
    assert.equal(refund.blocksRemaining, 0);
    assert.equal((refund.details as BitcoinRefundDetails).currentBlockHeight, 612_500);
    assert.equal((refund.details as BitcoinRefundDetails).feeTokensPerVirtualByte, 3);
  });

  test('is zero blocks away exactly at the refundable height', () => {
    const chains = { ...CHAINS, bitcoin: { blockHeight: 612_183, feeTokensPerVirtualByte: 12 } };
    assert.equal(deriveRefundDetails(bitcoinOrder(), BTC_LBTC, chains).blocksRemaining, 0);
  });

  for (const state of ['Complete', 'Refunded'] as const) {
    test(`has nothing left to refund once ${state}`, () => {
      const refund = deriveRefundDetails(bitcoinOrder({ state }), BTC_LBTC, CHAINS);
      assert.equal(refund.state, state);
      assert.equal(refund.refundableBalance, 0n);
      assert.deepEqual((refund.details as BitcoinRefundDetails).utxos, []);
    });
  }

  test('has nothing left to refund once a REFUND transaction exists, confirmed or not', () => {
    const order = bitcoinOrder({
      state: 'WaitingForRefundTxConfirmation',
      transactions: [FIRST_FUND, SECOND_FUND, { type: 'REFUND', id: 'dd'.repeat(32) }],
    });
    const refund = deriveRefundDetails(order, BTC_LBTC, CHAINS);
    assert.equal(refund.refundableBalance, 0n);
    assert.deepEqual((refund.details as BitcoinRefundDetails).utxos, []);
    assert.equal(refund.type, 'TimelockRefund');
  });

  test('is an AdminRefund without timelock fields when the address is blacklisted', () => {
    const refund = deriveRefundDetails(
      bitcoinOrder({ state: 'AddressBlacklistedWaitingForRefundTx' }),
      BTC_LBTC,
      CHAINS,
    );
    assert.equal(refund.type, 'AdminRefund');
    assert.equal('blocksRemaining' in refund, false);
    assert.equal('refundableAtBlockHeight' in refund, false);
    assert.equal(refund.refundableBalance, 35_590n);
    assert.equal((refund.details as BitcoinRefundDetails).utxos.length, 2);
  });

  test('has nothing locked before any funds arrive', () => {
    const refund = deriveRefundDetails(
      bitcoinOrder({ state: 'WaitingForFundingTx', transactions: [] }),
      BTC_LBTC,
      CHAINS,
    );
    assert.equal(refund.refundableBalance, 0n);
    assert.deepEqual((refund.details as BitcoinRefundDetails).utxos, []);
  });

  test('leaves refundAddress out when the order has none', () => {
    const { refundAddress: _omitted, ...withoutRefundAddress } = bitcoinOrder();
    const refund = deriveRefundDetails(withoutRefundAddress, BTC_LBTC, CHAINS);
    assert.equal('refundAddress' in refund.details, false);
  });

  test('throws without a Bitcoin chain view', () => {
    assert.throws(
      () => deriveRefundDetails(bitcoinOrder(), BTC_LBTC, { ethereum: CHAINS.ethereum }),
      /bitcoin chain view/,
    );
  });

  test('throws when the order has no redeem script', () => {
    assert.throws(() =>
      deriveRefundDetails(bitcoinOrder({ htlc: { refundableAtBlockHeight: 612_183 } }), BTC_LBTC, CHAINS),
    );
  });
});

describe('deriveRefundDetails for an Ethereum order', () => {
  test('is a refund(orderUUID) call on the swap contract', () => {
    assert.deepEqual(deriveRefundDetails(ethereumOrder(), ETH_LBTC, CHAINS), {
      market: 'ETH_LBTC',
      type: 'TimelockRefund',
      state: 'Funded',
      blocksRemaining: 240,
      refundableAtBlockHeight: 9_230_240,
      refundableBalance: 499_500_000_000_000_000n,
      details: {
        to: SWAP_CONTRACT,
        data: `0xdfdecfaf${'0b5d2f4e9a8c4c718f3e2d6b1a7c9e40'.padEnd(64, '0')}`,
      },
    });
  });

  test('has nothing left to refund once Complete', () => {
    assert.equal(deriveRefundDetails(ethereumOrder({ state: 'Complete' }), ETH_LBTC, CHAINS).refundableBalance, 0n);
  });

  test("still holds the slots not yet refunded when one funder's slot was: the same call serves every funder", () => {
    const order = ethereumOrder({
      state: 'WaitingForRefundTx',
      transactions: [
        { type: 'FUND', id: '0x' + 'a1'.repeat(32), amount: 300n, blockHeight: 9_230_000 },
        { type: 'FUND', id: '0x' + 'a2'.repeat(32), amount: 700n, blockHeight: 9_230_001 },
        { type: 'REFUND', id: '0x' + 'b1'.repeat(32), amount: 300n, blockHeight: 9_230_300 },
      ],
    });
    const refund = deriveRefundDetails(order, ETH_LBTC, CHAINS);
    assert.equal(refund.refundableBalance, 700n);
    assert.deepEqual(refund.details, deriveRefundDetails(ethereumOrder(), ETH_LBTC, CHAINS).details);
  });

  test('is an AdminRefund when the address is blacklisted', () => {
    const refund = deriveRefundDetails(
      ethereumOrder({ state: 'AddressBlacklistedWaitingForRefundTx' }),
      ETH_LBTC,
      CHAINS,
    );
    assert.equal(refund.type, 'AdminRefund');
    assert.equal('blocksRemaining' in refund, false);
  });

  test('throws without an Ethereum chain view', () => {
    assert.throws(
      () => deriveRefundDetails(ethereumOrder(), ETH_LBTC, { bitcoin: CHAINS.bitcoin }),
      /ethereum chain view/,
    );
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveFundingDetails } from '../../src/domain/funding.js';
import { BTC_LBTC, ETH_LBTC, SWAP_CONTRACT, CHAINS, paymentHash, redeemScript, bitcoinOrder, ethereumOrder } from './order-fixtures.js';

// Funding reads only the amount, the pay-to address and the HTLC terms; state and funds are irrelevant.
const bitcoinFundingOrder = bitcoinOrder({ transactions: [] });
const ethereumFundingOrder = ethereumOrder({ state: 'WaitingForFundingTx', transactions: [] });

describe('deriveFundingDetails', () => {
  test('a Bitcoin order is funded by paying its HTLC address the full amount', () => {
    assert.deepEqual(deriveFundingDetails(bitcoinFundingOrder, BTC_LBTC, CHAINS), {
      orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
      expiryTimestampMs: Date.parse('2019-11-05T20:41:08.821Z'),
      amount: 35_590n,
      details: { redeemScript, payToAddress: bitcoinFundingOrder.payToAddress, refundableAtBlockHeight: 612_183 },
    });
  });

  test('a Bitcoin order needs no chain view', () => {
    assert.equal(deriveFundingDetails(bitcoinFundingOrder, BTC_LBTC, {}).amount, 35_590n);
  });

  test('a Bitcoin order without a redeem script cannot be funded', () => {
    assert.throws(() => deriveFundingDetails({ ...bitcoinFundingOrder, htlc: { refundableAtBlockHeight: 612_183 } }, BTC_LBTC, CHAINS));
  });

  test('an Ethereum order is funded by calling fund(orderUUID, paymentHash) with the full amount in wei', () => {
    assert.deepEqual(deriveFundingDetails(ethereumFundingOrder, ETH_LBTC, CHAINS), {
      orderId: '0b5d2f4e-9a8c-4c71-8f3e-2d6b1a7c9e40',
      expiryTimestampMs: Date.parse('2019-11-05T20:41:08.821Z'),
      amount: 499_500_000_000_000_000n,
      details: {
        unsignedFundingTx: {
          to: SWAP_CONTRACT,
          data: `0x3fdcdd1e${'0b5d2f4e9a8c4c718f3e2d6b1a7c9e40'.padEnd(64, '0')}${paymentHash}`,
          value: 499_500_000_000_000_000n,
        },
      },
    });
  });

  test('an Ethereum order needs the swap contract from the chain view', () => {
    assert.throws(() => deriveFundingDetails(ethereumFundingOrder, ETH_LBTC, { bitcoin: CHAINS.bitcoin }), /ethereum chain view/);
  });
});

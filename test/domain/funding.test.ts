import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import { deriveFundingDetails } from '../../src/domain/funding.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import { findMarket, type Market } from '../../src/domain/markets.js';
import type { ChainViews, OrderRecord } from '../../src/domain/order.js';
import { makeInvoice } from '../support/invoices.js';

const BTC_LBTC = findMarket('BTC_LBTC') as Market;
const ETH_LBTC = findMarket('ETH_LBTC') as Market;
const SWAP_CONTRACT = '0xf0398fad8c2aa38c476b010c269158d442730e98';
const CHAINS: ChainViews = {
  bitcoin: { blockHeight: 612_100, feeTokensPerVirtualByte: 12 },
  ethereum: { blockHeight: 9_230_000, swapContractAddress: SWAP_CONTRACT },
};

const { invoice, paymentHash } = makeInvoice({
  network: 'mainnet',
  amountSatoshis: 35_000n,
  preimage: '24'.repeat(32),
  timestampSeconds: 1_572_984_668,
});
const redeemScript = buildHtlcRedeemScript({
  paymentHash,
  claimPublicKey: '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad',
  refundPublicKeyHash: '751e76e8199196d454941c45d1b3a323f1433bd6',
  refundableAtBlockHeight: 612_183,
});
const payToAddress = htlcPayToAddresses(redeemScript, 'mainnet').p2shP2wsh;

const bitcoinOrder: OrderRecord = {
  id: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
  market: 'BTC_LBTC',
  invoice,
  invoiceHash: hashInvoice(invoice),
  paymentHash,
  createdAt: Date.parse('2019-11-05T20:11:08.821Z'),
  expiresAt: Date.parse('2019-11-05T20:41:08.821Z'),
  state: 'PartiallyFunded',
  amount: 35_590n,
  payToAddress,
  refundAddress: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  htlc: { redeemScript, refundableAtBlockHeight: 612_183 },
  transactions: [{ type: 'FUND', id: 'aa'.repeat(32), amount: 10_000n, outputIndex: 0, blockHeight: 612_010 }],
};

const ethereumOrder: OrderRecord = {
  ...bitcoinOrder,
  id: '0b5d2f4e-9a8c-4c71-8f3e-2d6b1a7c9e40',
  market: 'ETH_LBTC',
  state: 'WaitingForFundingTx',
  amount: 499_500_000_000_000_000n,
  payToAddress: SWAP_CONTRACT,
  htlc: { refundableAtBlockHeight: 9_230_240 },
  transactions: [],
};

describe('deriveFundingDetails', () => {
  test('a Bitcoin order is funded by paying its HTLC address the full amount', () => {
    assert.deepEqual(deriveFundingDetails(bitcoinOrder, BTC_LBTC, CHAINS), {
      orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
      expiryTimestampMs: Date.parse('2019-11-05T20:41:08.821Z'),
      amount: 35_590n,
      details: { redeemScript, payToAddress, refundableAtBlockHeight: 612_183 },
    });
  });

  test('a Bitcoin order needs no chain view', () => {
    assert.equal(deriveFundingDetails(bitcoinOrder, BTC_LBTC, {}).amount, 35_590n);
  });

  test('a Bitcoin order without a redeem script cannot be funded', () => {
    assert.throws(() => deriveFundingDetails({ ...bitcoinOrder, htlc: { refundableAtBlockHeight: 612_183 } }, BTC_LBTC, CHAINS));
  });

  test('an Ethereum order is funded by calling fund(orderUUID, paymentHash) with the full amount in wei', () => {
    assert.deepEqual(deriveFundingDetails(ethereumOrder, ETH_LBTC, CHAINS), {
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
    assert.throws(() => deriveFundingDetails(ethereumOrder, ETH_LBTC, { bitcoin: CHAINS.bitcoin }), /ethereum chain view/);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import { findMarket, type Market } from '../../src/domain/markets.js';
import type { ChainViews, OrderRecord, OrderTransaction } from '../../src/domain/order.js';
import { deriveRefundDetails, type BitcoinRefundDetails } from '../../src/domain/refund.js';
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
  preimage: '42'.repeat(32),
  timestampSeconds: 1_572_984_668,
});
const redeemScript = buildHtlcRedeemScript({
  paymentHash,
  claimPublicKey: '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad',
  refundPublicKeyHash: '751e76e8199196d454941c45d1b3a323f1433bd6',
  refundableAtBlockHeight: 612_183,
});

const FIRST_FUND: OrderTransaction = { type: 'FUND', id: 'aa'.repeat(32), amount: 20_000n, outputIndex: 1, blockHeight: 612_010 };
const SECOND_FUND: OrderTransaction = { type: 'FUND', id: 'bb'.repeat(32), amount: 15_590n, outputIndex: 0 };

function bitcoinOrder(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
    market: 'BTC_LBTC',
    invoice,
    invoiceHash: hashInvoice(invoice),
    paymentHash,
    createdAt: Date.parse('2019-11-05T20:11:08.821Z'),
    expiresAt: Date.parse('2019-11-05T20:41:08.821Z'),
    state: 'PartiallyFunded',
    amount: 35_590n,
    payToAddress: htlcPayToAddresses(redeemScript, 'mainnet').p2wsh,
    refundAddress: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    htlc: { redeemScript, refundableAtBlockHeight: 612_183 },
    transactions: [FIRST_FUND, SECOND_FUND],
    ...overrides,
  };
}

function ethereumOrder(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: '0b5d2f4e-9a8c-4c71-8f3e-2d6b1a7c9e40',
    market: 'ETH_LBTC',
    invoice,
    invoiceHash: hashInvoice(invoice),
    paymentHash,
    createdAt: Date.parse('2019-11-05T20:11:08.821Z'),
    expiresAt: Date.parse('2019-11-05T20:41:08.821Z'),
    state: 'Funded',
    amount: 499_500_000_000_000_000n,
    payToAddress: SWAP_CONTRACT,
    htlc: { refundableAtBlockHeight: 9_230_240 },
    transactions: [{ type: 'FUND', id: `0x${'cc'.repeat(32)}`, amount: 499_500_000_000_000_000n, blockHeight: 9_229_990 }],
    ...overrides,
  };
}

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
    const refund = deriveRefundDetails(bitcoinOrder({ state: 'AddressBlacklistedWaitingForRefundTx' }), BTC_LBTC, CHAINS);
    assert.equal(refund.type, 'AdminRefund');
    assert.equal('blocksRemaining' in refund, false);
    assert.equal('refundableAtBlockHeight' in refund, false);
    assert.equal(refund.refundableBalance, 35_590n);
    assert.equal((refund.details as BitcoinRefundDetails).utxos.length, 2);
  });

  test('has nothing locked before any funds arrive', () => {
    const refund = deriveRefundDetails(bitcoinOrder({ state: 'WaitingForFundingTx', transactions: [] }), BTC_LBTC, CHAINS);
    assert.equal(refund.refundableBalance, 0n);
    assert.deepEqual((refund.details as BitcoinRefundDetails).utxos, []);
  });

  test('leaves refundAddress out when the order has none', () => {
    const { refundAddress: _omitted, ...withoutRefundAddress } = bitcoinOrder();
    const refund = deriveRefundDetails(withoutRefundAddress, BTC_LBTC, CHAINS);
    assert.equal('refundAddress' in refund.details, false);
  });

  test('throws without a Bitcoin chain view', () => {
    assert.throws(() => deriveRefundDetails(bitcoinOrder(), BTC_LBTC, { ethereum: CHAINS.ethereum }), /bitcoin chain view/);
  });

  test('throws when the order has no redeem script', () => {
    assert.throws(() => deriveRefundDetails(bitcoinOrder({ htlc: { refundableAtBlockHeight: 612_183 } }), BTC_LBTC, CHAINS));
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

  test('is an AdminRefund when the address is blacklisted', () => {
    const refund = deriveRefundDetails(ethereumOrder({ state: 'AddressBlacklistedWaitingForRefundTx' }), ETH_LBTC, CHAINS);
    assert.equal(refund.type, 'AdminRefund');
    assert.equal('blocksRemaining' in refund, false);
  });

  test('throws without an Ethereum chain view', () => {
    assert.throws(() => deriveRefundDetails(ethereumOrder(), ETH_LBTC, { bitcoin: CHAINS.bitcoin }), /ethereum chain view/);
  });
});

import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../../src/domain/bitcoin.js';
import { hashInvoice } from '../../../src/domain/invoice.js';
import { findMarket, type Market } from '../../../src/domain/markets.js';
import type { ChainViews, OrderRecord, OrderTransaction } from '../../../src/domain/order.js';
import { makeInvoice } from '../invoices.js';

/** One Bitcoin and one Ethereum order on a real invoice and HTLC, shared by the derivation tests. */
export const BTC_LBTC = findMarket('BTC_LBTC') as Market;
export const ETH_LBTC = findMarket('ETH_LBTC') as Market;
export const SWAP_CONTRACT = '0xf0398fad8c2aa38c476b010c269158d442730e98';
export const CHAINS: ChainViews = {
  bitcoin: { blockHeight: 612_100, feeTokensPerVirtualByte: 12 },
  ethereum: { blockHeight: 9_230_000, swapContractAddress: SWAP_CONTRACT },
};

export const { invoice, paymentHash } = makeInvoice({
  network: 'mainnet',
  amountSatoshis: 35_000n,
  preimage: '42'.repeat(32),
  timestampSeconds: 1_572_984_668,
});
export const redeemScript = buildHtlcRedeemScript({
  paymentHash,
  claimPublicKey: '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad',
  refundPublicKeyHash: '751e76e8199196d454941c45d1b3a323f1433bd6',
  refundableAtBlockHeight: 612_183,
});

export const FIRST_FUND: OrderTransaction = {
  type: 'FUND',
  id: 'aa'.repeat(32),
  amount: 20_000n,
  outputIndex: 1,
  blockHeight: 612_010,
};
export const SECOND_FUND: OrderTransaction = { type: 'FUND', id: 'bb'.repeat(32), amount: 15_590n, outputIndex: 0 };

export function bitcoinOrder(overrides: Partial<OrderRecord> = {}): OrderRecord {
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

export function ethereumOrder(overrides: Partial<OrderRecord> = {}): OrderRecord {
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
    transactions: [
      { type: 'FUND', id: `0x${'cc'.repeat(32)}`, amount: 499_500_000_000_000_000n, blockHeight: 9_229_990 },
    ],
    ...overrides,
  };
}

import { createHash } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import { signInvoice } from '../../src/demo/lightning/bolt11-writer.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import type { OrderRecord } from '../../src/domain/order.js';
import { datasetKeys } from '../dataset/order-generator.js';
import { SeededRandom } from '../dataset/seeded-random.js';

const DAY_MS = 86_400_000;
/** Blocks from the chain's tip to each HTLC's refund height: a day, as quotes give. */
const TIMELOCK_BLOCKS = 144;

/**
 * `count` Bitcoin orders waiting for their funding, each with its own signed invoice and HTLC (a P2WSH address),
 * as quotes leave them. Seeded: the first n orders of a larger count are the n orders of a smaller one, so every
 * order a funding pays is live in each store of the scenario. Their fund windows stay open for a day.
 */
export function liveBitcoinOrders(count: number, now: number, tipHeight: number): OrderRecord[] {
  const random = new SeededRandom('lnswap-bench-bitcoin-watch');
  const { payeeKeys, makerClaimKeys } = datasetKeys();
  const orders: OrderRecord[] = [];
  for (let index = 0; index < count; index++) {
    const preimage = random.bytes(32);
    const paymentHash = createHash('sha256').update(preimage).digest();
    const satoshis = random.integer(10_000, 100_000);
    const invoice = signInvoice({
      network: 'mainnet',
      payeePrivateKey: payeeKeys[random.integer(0, payeeKeys.length - 1)]!,
      satoshis,
      timestampSeconds: Math.floor(now / 1000),
      paymentHash,
      paymentSecret: random.bytes(32),
      description: `bench order ${index}`,
      expirySeconds: DAY_MS / 1000,
    });
    const refundHash = random.bytes(20);
    const refundableAtBlockHeight = tipHeight + TIMELOCK_BLOCKS;
    const redeemScript = buildHtlcRedeemScript({
      paymentHash: paymentHash.toString('hex'),
      claimPublicKey: makerClaimKeys[random.integer(0, makerClaimKeys.length - 1)]!,
      refundPublicKeyHash: refundHash.toString('hex'),
      refundableAtBlockHeight,
    });
    orders.push({
      id: random.uuid(),
      market: 'BTC_LBTC',
      invoice,
      invoiceHash: hashInvoice(invoice),
      paymentHash: paymentHash.toString('hex'),
      createdAt: now,
      expiresAt: now + DAY_MS,
      state: 'WaitingForFundingTx',
      // The maker's fee and the claim's miner fee on top of the invoice.
      amount: BigInt(satoshis + Math.ceil(satoshis * 0.005) + 1500),
      payToAddress: htlcPayToAddresses(redeemScript, 'mainnet').p2wsh,
      refundAddress: payments.p2wpkh({ hash: refundHash }).address!,
      htlc: { redeemScript, refundableAtBlockHeight },
      transactions: [],
    });
  }
  return orders;
}

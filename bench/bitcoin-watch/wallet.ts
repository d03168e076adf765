import { payments, type Transaction } from 'bitcoinjs-lib';
import { BITCOIN_VIEW, hex32 } from '../../test/support/fixtures.js';
import { buildPayment, p2wpkhAddress, walletKey, type Outpoint } from '../../test/support/bitcoin-wallet.js';
import { SeededRandom } from '../dataset/seeded-random.js';
import { IndexedTestChain } from './indexed-chain.js';

const key = walletKey(hex32('bench bitcoin-watch wallet'));
/** Each coin pays one transaction of the traffic: the largest order (about 102,000 sat) and its fee fit. */
const COIN_SATOSHIS = 150_000n;

/** A payment of the traffic, signed: to an order's HTLC (a funding) or to someone else's address. */
export interface PlannedPayment {
  readonly tx: Transaction;
  /** The order this payment funds in full; undefined for a payment elsewhere. */
  readonly fundsOrderId?: string;
}

/**
 * A chain whose wallet holds `coinCount` confirmed coins of its own, so that every payment of the traffic spends
 * its own coin and none waits on another: a coinbase to the wallet, then a transaction splitting it, both mined.
 */
export function chainWithCoins(coinCount: number): { chain: IndexedTestChain; coins: Outpoint[] } {
  const chain = new IndexedTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  const walletAddress = p2wpkhAddress(key, 'mainnet');
  const coinbase = chain.mine({ coinbaseTo: walletAddress }).txs[0]!;
  const split = buildPayment(
    key,
    { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value },
    Array.from({ length: coinCount }, () => ({ address: walletAddress, amount: COIN_SATOSHIS })),
    'mainnet',
  );
  chain.submit(split.toHex());
  chain.mine();
  const txId = split.getId();
  const coins = Array.from({ length: coinCount }, (_, index) => ({ txId, index, amount: COIN_SATOSHIS }));
  return { chain, coins };
}

/** Pays the order's exact amount to its HTLC address. */
export function funding(coin: Outpoint, order: { id: string; payToAddress: string; amount: bigint }): PlannedPayment {
  const tx = buildPayment(key, coin, [{ address: order.payToAddress, amount: order.amount }], 'mainnet');
  return { tx, fundsOrderId: order.id };
}

/** Pays a seeded amount to a seeded address nobody watches. */
export function paymentElsewhere(coin: Outpoint, random: SeededRandom): PlannedPayment {
  const address = payments.p2wpkh({ hash: random.bytes(20) }).address!;
  const amount = BigInt(random.integer(5_000, 100_000));
  return { tx: buildPayment(key, coin, [{ address, amount }], 'mainnet') };
}

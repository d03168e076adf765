import { Transaction } from 'bitcoinjs-lib';
import type { Network } from '../../domain/markets.js';
import { BroadcastRefused, type ChainBackend, type FeeRateSource } from '../chain-backend.js';

/** A Bitcoin node, whatever API it speaks: the chain interface, and the fee rate refunds are priced at. */
export interface BitcoinBackend extends ChainBackend, FeeRateSource {
  readonly chain: 'bitcoin';
}

/**
 * Blocks a refund should take to confirm. The user's funds are safe in the HTLC whatever the rate, but a
 * refund left waiting keeps them from the user: price it for the next blocks, as Boltz does.
 */
export const FEE_TARGET_BLOCKS = 2;

/** Whole satoshis per vbyte, rounded up: a rate below the estimate risks waiting, one above costs under a sat a vbyte. */
export function wholeFeeRate(satoshisPerVirtualByte: number): number | undefined {
  if (!Number.isFinite(satoshisPerVirtualByte) || satoshisPerVirtualByte <= 0) return undefined;
  return Math.max(1, Math.ceil(satoshisPerVirtualByte - 1e-9));
}

/** Block 0 of each network: the one thing every API answers that says which chain a node follows. */
const GENESIS_HASHES: Readonly<Record<string, Network>> = {
  '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f': 'mainnet',
  '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943': 'testnet',
  '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043': 'testnet',
  '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6': 'testnet',
  '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206': 'simnet',
};

/** The network of a genesis hash; an unknown one is some test network (a custom signet), never mainnet. */
export function networkOfGenesis(genesisHash: string): Network {
  return GENESIS_HASHES[genesisHash.toLowerCase()] ?? 'testnet';
}

/** Refuses, before any node sees it, what is not a Bitcoin transaction; answers its id otherwise. */
export function checkedTransactionId(signedTxHex: string): string {
  if (typeof signedTxHex !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(signedTxHex)) {
    throw new BroadcastRefused('InvalidTransaction', 'not hex');
  }
  try {
    const tx = Transaction.fromHex(signedTxHex);
    if (tx.ins.length === 0 || tx.outs.length === 0) throw new Error('a transaction needs inputs and outputs');
    return tx.getId();
  } catch (error) {
    throw new BroadcastRefused('InvalidTransaction', (error as Error).message);
  }
}

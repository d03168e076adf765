import type { Network } from '../../domain/markets.js';

/** Public Ethereum test networks (Ropsten, Rinkeby, Goerli, Kovan, Sepolia, Holesky, Hoodi). */
const TESTNET_CHAIN_IDS: ReadonlySet<number> = new Set([3, 4, 5, 42, 11155111, 17000, 560048]);

/** Chain id 1 is mainnet; the public test networks are testnet; anything else is a local or private chain. */
export function networkOfChainId(chainId: number): Network {
  if (chainId === 1) return 'mainnet';
  return TESTNET_CHAIN_IDS.has(chainId) ? 'testnet' : 'simnet';
}

/**
 * Whether orders of a market on `network` may be watched on the chain `chainId`: mainnet markets only on
 * mainnet, and test markets never on it (a mainnet order watched on a test chain would be a loss).
 */
export function marketFitsChain(network: Network, chainId: number): boolean {
  return (network === 'mainnet') === (chainId === 1);
}

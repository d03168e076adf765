import { findMarket, type Market } from './markets.js';

/** Ethereum mainnet's chain id (EIP-155); every other id is some test chain. */
export const ETHEREUM_MAINNET_CHAIN_ID = 1;

/** Whether an Ethereum node with this chain id may carry this market's orders. */
export function ethereumChainFitsMarket(chainId: number, market: Market): boolean {
  if (market.onchain.chain !== 'ethereum') return true;
  return (chainId === ETHEREUM_MAINNET_CHAIN_ID) === (market.network === 'mainnet');
}

/**
 * Why an Ethereum node with this chain id must not be watched for the offered markets, or undefined when it may.
 * Mainnet markets only on chain id 1, testnet and simnet markets never on it: a mainnet order followed on a
 * test chain would be paid for with worthless coins, a test order on mainnet would move real ones.
 */
export function ethereumChainMismatch(chainId: number, offeredMarkets: readonly string[]): string | undefined {
  const misfits = offeredMarkets
    .map((name) => findMarket(name))
    .filter((market): market is Market => market !== undefined && !ethereumChainFitsMarket(chainId, market));
  if (misfits.length === 0) return undefined;
  const names = misfits.map((market) => `${market.name} (${market.network})`).join(', ');
  const wanted =
    chainId === ETHEREUM_MAINNET_CHAIN_ID ? 'a test chain (any chain id but 1)' : 'Ethereum mainnet (chain id 1)';
  return `the Ethereum node's chain id ${chainId} does not fit the offered market ${names}, which needs ${wanted}`;
}

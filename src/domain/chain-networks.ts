import type { MarketCatalog } from './market-catalog.js';
import type { Market, Network } from './markets.js';

/** Ethereum mainnet's chain id (EIP-155); every other id is some test chain. */
export const ETHEREUM_MAINNET_CHAIN_ID = 1;

/** Whether orders on `network` may be followed on the Ethereum chain `chainId`: mainnet only on mainnet. */
export function ethereumChainFitsNetwork(chainId: number, network: Network): boolean {
  return (chainId === ETHEREUM_MAINNET_CHAIN_ID) === (network === 'mainnet');
}

/** Whether an Ethereum node with this chain id may carry this market's orders. */
export function ethereumChainFitsMarket(chainId: number, market: Market): boolean {
  return market.onchain.chain !== 'ethereum' || ethereumChainFitsNetwork(chainId, market.network);
}

/**
 * Why an Ethereum node with this chain id must not be watched for the offered markets, or undefined when it may.
 * Mainnet markets only on chain id 1, testnet and simnet markets never on it: a mainnet order followed on a
 * test chain would be paid for with worthless coins, a test order on mainnet would move real ones.
 */
export function ethereumChainMismatch(
  chainId: number,
  offeredMarkets: readonly string[],
  catalog: MarketCatalog,
): string | undefined {
  const misfits = offeredMarkets
    .map((name) => catalog.findMarket(name))
    .filter((market): market is Market => market !== undefined && !ethereumChainFitsMarket(chainId, market));
  if (misfits.length === 0) return undefined;
  const names = misfits.map((market) => `${market.name} (${market.network})`).join(', ');
  const wanted =
    chainId === ETHEREUM_MAINNET_CHAIN_ID ? 'a test chain (any chain id but 1)' : 'Ethereum mainnet (chain id 1)';
  return `the Ethereum node's chain id ${chainId} does not fit the offered market ${names}, which needs ${wanted}`;
}

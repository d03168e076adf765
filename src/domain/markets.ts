export type Network = 'mainnet' | 'testnet' | 'simnet';
export type ChainKind = 'bitcoin' | 'ethereum';

export const NETWORKS: readonly Network[] = ['mainnet', 'testnet', 'simnet'];

export interface OnchainAsset {
  readonly ticker: string;
  readonly chain: ChainKind;
  readonly network: Network;
  /** Digits after the point of one whole unit: 8 for satoshis, 18 for wei, the token's own for an ERC-20. */
  readonly decimals: number;
  /** An ERC-20 token's contract (lowercase); absent for the chain's native asset. */
  readonly tokenAddress?: string;
}

export interface Market {
  readonly name: string;
  readonly onchain: OnchainAsset;
  readonly offchainTicker: string;
  readonly network: Network;
}

export const ONCHAIN_ASSETS: readonly OnchainAsset[] = [
  { ticker: 'BTC', chain: 'bitcoin', network: 'mainnet', decimals: 8 },
  { ticker: 'ETH', chain: 'ethereum', network: 'mainnet', decimals: 18 },
  { ticker: 'TBTC', chain: 'bitcoin', network: 'testnet', decimals: 8 },
  { ticker: 'KETH', chain: 'ethereum', network: 'testnet', decimals: 18 },
  { ticker: 'SBTC', chain: 'bitcoin', network: 'simnet', decimals: 8 },
  { ticker: 'SETH', chain: 'ethereum', network: 'simnet', decimals: 18 },
];

export const OFFCHAIN_TICKER_BY_NETWORK: Readonly<Record<Network, string>> = {
  mainnet: 'LBTC',
  testnet: 'LTBTC',
  simnet: 'LSBTC',
};

function marketOfAsset(onchain: OnchainAsset): Market {
  const offchainTicker = OFFCHAIN_TICKER_BY_NETWORK[onchain.network];
  return { name: `${onchain.ticker}_${offchainTicker}`, onchain, offchainTicker, network: onchain.network };
}

/** The markets of the chains' native assets, which every service knows; which of them it offers is configuration. */
export const KNOWN_MARKETS: readonly Market[] = ONCHAIN_ASSETS.map(marketOfAsset);

const marketsByName = new Map(KNOWN_MARKETS.map((market) => [market.name, market]));
const assetsByTicker = new Map(ONCHAIN_ASSETS.map((asset) => [asset.ticker, asset]));

/**
 * A known market by name. Clients send tickers and market names as typed (`btc_lbtc`), so lookups ignore case.
 * Markets of configured tokens are found through the configuration's `MarketCatalog` instead.
 */
export function findMarket(name: string): Market | undefined {
  return marketsByName.get(name.toUpperCase());
}

/** A known on-chain asset by ticker; a configured token's is in the configuration's `MarketCatalog`. */
export function findOnchainAsset(ticker: string): OnchainAsset | undefined {
  return assetsByTicker.get(ticker.toUpperCase());
}

/**
 * The offered market `name` denotes, in its canonical spelling, or undefined when it is not offered. Offered
 * names are canonical (upper case), so this needs no catalog: a configured token's market is found like any other.
 */
export function offeredMarketNamed(name: string, offeredMarkets: readonly string[]): string | undefined {
  const canonical = name.toUpperCase();
  return offeredMarkets.includes(canonical) ? canonical : undefined;
}

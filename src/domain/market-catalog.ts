import {
  findMarket,
  findOnchainAsset,
  KNOWN_MARKETS,
  NETWORKS,
  OFFCHAIN_TICKER_BY_NETWORK,
  ONCHAIN_ASSETS,
  type Market,
  type Network,
  type OnchainAsset,
} from './markets.js';

/** An ERC-20 token the operator configured; its one market pairs it with the off-chain ticker of its network. */
export interface TokenAsset {
  /** Upper case, 2 to 12 letters and digits, starting with a letter; never a known ticker. */
  readonly ticker: string;
  readonly network: Network;
  /** The token's contract, lowercase. */
  readonly address: string;
  /** Digits after the point of one whole token (USDC: 6). */
  readonly decimals: number;
}

const TOKEN_TICKER_PATTERN = /^[A-Z][A-Z0-9]{1,11}$/;
const ADDRESS_PATTERN = /^0x[0-9a-f]{40}$/;
/** A uint256 holds 77 full decimal digits; no real token uses more than 18. */
export const MAX_TOKEN_DECIMALS = 36;

const RESERVED_TICKERS: ReadonlySet<string> = new Set([
  ...ONCHAIN_ASSETS.map((asset) => asset.ticker),
  ...Object.values(OFFCHAIN_TICKER_BY_NETWORK),
]);

/** Why a token's own fields are not acceptable, naming the field; undefined when they are. */
export function tokenFieldProblem(token: TokenAsset): { field: keyof TokenAsset; problem: string } | undefined {
  if (!TOKEN_TICKER_PATTERN.test(token.ticker)) {
    return { field: 'ticker', problem: 'must be 2 to 12 upper-case letters and digits, starting with a letter' };
  }
  if (RESERVED_TICKERS.has(token.ticker)) return { field: 'ticker', problem: `${token.ticker} is a known ticker` };
  if (!NETWORKS.includes(token.network)) return { field: 'network', problem: `must be one of ${NETWORKS.join(', ')}` };
  if (!ADDRESS_PATTERN.test(token.address)) {
    return { field: 'address', problem: 'must be an Ethereum address in lower case (0x and 40 hex digits)' };
  }
  if (!Number.isSafeInteger(token.decimals) || token.decimals < 0 || token.decimals > MAX_TOKEN_DECIMALS) {
    return { field: 'decimals', problem: `must be an integer from 0 to ${MAX_TOKEN_DECIMALS}` };
  }
  return undefined;
}

/**
 * Why a list of tokens cannot be configured together, naming the index of the first offending one. Two tokens
 * may not share a ticker, nor a contract on one network: a contract's slots must belong to one market.
 */
export function tokenListProblem(
  tokens: readonly TokenAsset[],
): { index: number; field: keyof TokenAsset; problem: string } | undefined {
  for (const [index, token] of tokens.entries()) {
    const own = tokenFieldProblem(token);
    if (own !== undefined) return { index, ...own };
    const earlier = tokens.slice(0, index);
    const sameTicker = earlier.findIndex((other) => other.ticker === token.ticker);
    if (sameTicker !== -1) return { index, field: 'ticker', problem: `repeats tokens[${sameTicker}]` };
    const sameContract = earlier.findIndex(
      (other) => other.network === token.network && other.address === token.address,
    );
    if (sameContract !== -1) {
      return {
        index,
        field: 'address',
        problem: `is already the contract of tokens[${sameContract}] on ${token.network}`,
      };
    }
  }
  return undefined;
}

export function tokenOnchainAsset(token: TokenAsset): OnchainAsset {
  return {
    ticker: token.ticker,
    chain: 'ethereum',
    network: token.network,
    decimals: token.decimals,
    tokenAddress: token.address,
  };
}

export function tokenMarketName(token: TokenAsset): string {
  return `${token.ticker}_${OFFCHAIN_TICKER_BY_NETWORK[token.network]}`;
}

/**
 * The markets and on-chain assets a service can serve: the known ones and those of its configured tokens.
 * Built from the store's configuration (`catalogOf`) and handed to whatever resolves market names or tickers.
 */
export interface MarketCatalog {
  /** Known markets first, then one per token in configuration order. */
  readonly markets: readonly Market[];
  readonly assets: readonly OnchainAsset[];
  /** Ignores case, as clients send names as typed. */
  findMarket(name: string): Market | undefined;
  /** Ignores case. */
  findOnchainAsset(ticker: string): OnchainAsset | undefined;
  /** The market an order was made on; stores hold only markets of their configuration, so an unknown one is a bug. */
  marketOf(order: { readonly id: string; readonly market: string }): Market;
}

class TokenMarketCatalog implements MarketCatalog {
  readonly markets: readonly Market[];
  readonly assets: readonly OnchainAsset[];
  private readonly tokenMarkets: ReadonlyMap<string, Market>;
  private readonly tokenAssets: ReadonlyMap<string, OnchainAsset>;

  constructor(tokens: readonly TokenAsset[]) {
    const markets = tokens.map((token): Market => ({
      name: tokenMarketName(token),
      onchain: tokenOnchainAsset(token),
      offchainTicker: OFFCHAIN_TICKER_BY_NETWORK[token.network],
      network: token.network,
    }));
    this.markets = [...KNOWN_MARKETS, ...markets];
    this.assets = [...ONCHAIN_ASSETS, ...markets.map((market) => market.onchain)];
    this.tokenMarkets = new Map(markets.map((market) => [market.name, market]));
    this.tokenAssets = new Map(markets.map((market) => [market.onchain.ticker, market.onchain]));
  }

  // Known markets are looked up first, through the same map as the free functions: their reads cost what they did.
  findMarket(name: string): Market | undefined {
    return findMarket(name) ?? this.tokenMarkets.get(name.toUpperCase());
  }

  findOnchainAsset(ticker: string): OnchainAsset | undefined {
    return findOnchainAsset(ticker) ?? this.tokenAssets.get(ticker.toUpperCase());
  }

  marketOf(order: { readonly id: string; readonly market: string }): Market {
    const market = this.findMarket(order.market);
    if (market === undefined) throw new Error(`order ${order.id} names unknown market ${order.market}`);
    return market;
  }
}

/** The catalog of no tokens: the known markets alone. */
export const KNOWN_CATALOG: MarketCatalog = new TokenMarketCatalog([]);

const catalogs = new WeakMap<readonly TokenAsset[], MarketCatalog>();

/**
 * The catalog of a configuration's tokens. The store hands out one configuration object until it changes, so
 * the catalog is built once per configuration and every later call is a map lookup.
 */
export function catalogOf(configuration: { readonly tokens: readonly TokenAsset[] }): MarketCatalog {
  const { tokens } = configuration;
  if (tokens.length === 0) return KNOWN_CATALOG;
  let catalog = catalogs.get(tokens);
  if (catalog === undefined) {
    catalog = new TokenMarketCatalog(tokens);
    catalogs.set(tokens, catalog);
  }
  return catalog;
}

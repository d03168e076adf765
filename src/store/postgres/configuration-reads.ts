import { ConfigurationCache } from '../configuration-cache.js';
import {
  chainViewsFromRows,
  providersFromRows,
  tokensFromRows,
  type ChainViewRow,
  type ProviderMarketRow,
  type ProviderRow,
  type SwapContractRow,
  type TokenRow,
} from '../configuration-rows.js';
import type { ConfigurationReadStore } from '../store.js';
import { rows, type PostgresContext } from './context.js';
import {
  SELECT_CHAIN_VIEWS,
  SELECT_MARKETS,
  SELECT_PROVIDER_MARKETS,
  SELECT_PROVIDERS,
  SELECT_SWAP_CONTRACTS,
  SELECT_TOKENS,
} from './queries.js';

/** The configuration, read again only after a change; `stop` ends the cache's listening. */
export function postgresConfigurationReads(context: PostgresContext): {
  readonly reads: ConfigurationReadStore;
  readonly stop: () => void;
} {
  const cache = new ConfigurationCache(context.changes, async () => {
    const [markets, chains, contracts, providers, providerMarkets, tokens] = await Promise.all([
      rows<{ name: string }>(context, SELECT_MARKETS),
      rows<ChainViewRow>(context, SELECT_CHAIN_VIEWS),
      rows<SwapContractRow>(context, SELECT_SWAP_CONTRACTS),
      rows<ProviderRow>(context, SELECT_PROVIDERS),
      rows<ProviderMarketRow>(context, SELECT_PROVIDER_MARKETS),
      rows<TokenRow>(context, SELECT_TOKENS),
    ]);
    return {
      markets: markets.map((row) => row.name),
      chains: chainViewsFromRows(chains, contracts),
      providers: providersFromRows(providers, providerMarkets),
      tokens: tokensFromRows(tokens),
    };
  });
  return { reads: { getConfiguration: () => cache.get() }, stop: () => cache.stop() };
}

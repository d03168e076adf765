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
import type { SqliteContext } from './context.js';

/** The configuration, read again only after a change; `stop` ends the cache's listening. */
export function sqliteConfigurationReads({ statements, changes }: SqliteContext): {
  readonly reads: ConfigurationReadStore;
  readonly stop: () => void;
} {
  const cache = new ConfigurationCache(changes, async () => ({
    markets: statements.selectMarkets.all() as string[],
    chains: chainViewsFromRows(
      statements.selectChainViews.all() as ChainViewRow[],
      statements.selectSwapContracts.all() as SwapContractRow[],
    ),
    providers: providersFromRows(
      statements.selectProviders.all() as ProviderRow[],
      statements.selectProviderMarkets.all() as ProviderMarketRow[],
    ),
    tokens: tokensFromRows(statements.selectTokens.all() as TokenRow[]),
  }));
  return { reads: { getConfiguration: () => cache.get() }, stop: () => cache.stop() };
}

import type { ChainKind } from '../domain/markets.js';

const MARKET_QUOTES_PREFIX = 'quotes:';

/** Providers quoting one market. */
export function marketQuotesRoom(market: string): string {
  return `${MARKET_QUOTES_PREFIX}${market}`;
}

export function isMarketQuotesRoom(room: string): boolean {
  return room.startsWith(MARKET_QUOTES_PREFIX);
}

/** Users following one chain's block height, by the subnet name they used (one room per name, as events echo it). */
export function blockHeightRoom(chain: ChainKind, subnet: string): string {
  return `blockHeight:${chain}:${subnet}`;
}

/** Every authenticated connection of one provider: what only the provider itself is sent (a user's cancel). */
export function providerRoom(providerId: string): string {
  return `provider:${providerId}`;
}

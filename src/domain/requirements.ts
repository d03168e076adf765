import { LnswapError } from './errors.js';
import { offeredMarketNamed } from './markets.js';
import type { PayReq, ProviderRecord } from './order.js';

export interface MarketRequirements {
  /** Canonical market name. */
  readonly market: string;
  readonly payReq: PayReq;
}

/**
 * What a user must meet to get a quote on `market`: the loosest terms any active provider accepts,
 * because the best quote may come from any of them. Undefined when no active provider serves it.
 */
function combinePayReqs(market: string, activeProviders: readonly ProviderRecord[]): PayReq | undefined {
  let combined: PayReq | undefined;
  for (const provider of activeProviders) {
    const payReq = provider.markets[market];
    if (payReq === undefined) continue;
    combined =
      combined === undefined
        ? payReq
        : {
            minExpirationSeconds: minOf(combined.minExpirationSeconds, payReq.minExpirationSeconds),
            minBaseUnits: minOf(combined.minBaseUnits, payReq.minBaseUnits),
            maxBaseUnits: maxOf(combined.maxBaseUnits, payReq.maxBaseUnits),
          };
  }
  return combined;
}

function minOf(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** One entry per offered market that at least one active provider serves, in offered order. */
export function requirementsForAllMarkets(
  offeredMarkets: readonly string[],
  providers: readonly ProviderRecord[],
): MarketRequirements[] {
  const active = providers.filter((provider) => provider.active);
  return offeredMarkets.flatMap((market) => {
    const payReq = combinePayReqs(market, active);
    return payReq === undefined ? [] : [{ market, payReq }];
  });
}

/**
 * Requirements of one market named as the client typed it (any case).
 * Throws InvalidMarket, NoQuoteProvidersAvailable or NoQuoteProvidersForTheRequestedMarket, checked in that order.
 */
export function requirementsForMarket(
  requestedName: string,
  offeredMarkets: readonly string[],
  providers: readonly ProviderRecord[],
): MarketRequirements {
  const market = offeredMarketNamed(requestedName, offeredMarkets);
  if (market === undefined) throw new LnswapError('InvalidMarket');
  const active = providers.filter((provider) => provider.active);
  if (active.length === 0) throw new LnswapError('NoQuoteProvidersAvailable');
  const payReq = combinePayReqs(market, active);
  if (payReq === undefined) throw new LnswapError('NoQuoteProvidersForTheRequestedMarket');
  return { market, payReq };
}

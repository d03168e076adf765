import { LnswapError } from '../domain/errors.js';
import { offeredMarketNamed } from '../domain/markets.js';
import type { PayReq } from '../domain/order.js';
import { parseBaseUnits } from '../domain/amounts.js';
import { isPlainObject } from './payload-shapes.js';

/**
 * Reads a provider's `{ [market]: { payReq: { minExpirationSeconds, minBaseUnits, maxBaseUnits } } }`.
 * Markets must be offered; values are decimal integer strings, or safe integers that are normalized.
 * An empty object is valid: the provider serves no market for now. Throws
 * InvalidOrMissingActiveConfigurationFields.
 */
export function parseActiveConfiguration(payload: unknown, offeredMarkets: readonly string[]): Record<string, PayReq> {
  if (!isPlainObject(payload)) throw invalid();
  const configuration: Record<string, PayReq> = {};
  for (const [name, entry] of Object.entries(payload)) {
    const market = offeredMarketNamed(name, offeredMarkets);
    if (market === undefined || market in configuration) throw invalid();
    if (!isPlainObject(entry) || !isPlainObject(entry.payReq)) throw invalid();
    const { minExpirationSeconds, minBaseUnits, maxBaseUnits } = entry.payReq;
    const payReq: PayReq = {
      minExpirationSeconds: readCount(minExpirationSeconds),
      minBaseUnits: readCount(minBaseUnits),
      maxBaseUnits: readCount(maxBaseUnits),
    };
    if (payReq.minBaseUnits > payReq.maxBaseUnits) throw invalid();
    configuration[market] = payReq;
  }
  return configuration;
}

function readCount(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  const count = typeof value === 'string' ? parseBaseUnits(value) : undefined;
  if (count === undefined) throw invalid();
  return count;
}

function invalid(): LnswapError {
  return new LnswapError('InvalidOrMissingActiveConfigurationFields');
}

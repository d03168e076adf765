import { LnswapError } from '../../domain/errors.js';
import { offeredMarketNamed } from '../../domain/markets.js';
import type { PayReq } from '../../domain/order.js';
import { parseBaseUnits } from '../../domain/amounts.js';
import { activeConfigurationShape } from '../../wire/socket-payloads.js';
import { payloadReader } from './payload-shapes.js';

type Count = string | number;

const readConfiguration =
  payloadReader<Record<string, { payReq: { minExpirationSeconds: Count; minBaseUnits: Count; maxBaseUnits: Count } }>>(
    activeConfigurationShape,
  );

/**
 * Reads a provider's `{ [market]: { payReq: { minExpirationSeconds, minBaseUnits, maxBaseUnits } } }`.
 * Markets must be offered; values are decimal integer strings, or safe integers that are normalized.
 * An empty object is valid: the provider serves no market for now. Throws
 * InvalidOrMissingActiveConfigurationFields.
 */
export function parseActiveConfiguration(payload: unknown, offeredMarkets: readonly string[]): Record<string, PayReq> {
  const configuration: Record<string, PayReq> = {};
  for (const [name, entry] of Object.entries(readConfiguration(payload))) {
    const market = offeredMarketNamed(name, offeredMarkets);
    if (market === undefined || market in configuration) throw invalid();
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

function readCount(value: Count): bigint {
  if (typeof value === 'number') return BigInt(value);
  const count = parseBaseUnits(value);
  if (count === undefined) throw invalid();
  return count;
}

function invalid(): LnswapError {
  return new LnswapError('InvalidOrMissingActiveConfigurationFields');
}

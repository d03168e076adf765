/**
 * Exact money conversions between base units (satoshis, wei) held as bigint and the decimal
 * strings the wire uses. No floating point anywhere: a JS number cannot hold 18-decimal amounts.
 */

const WHOLE_UNITS_PATTERN = /^(0|[1-9]\d*)(?:\.(\d+))?$/;
const BASE_UNITS_PATTERN = /^(0|[1-9]\d*)$/;

/** Whole-unit decimal ("0.0003559") to base units; undefined when malformed or too precise. */
export function parseDecimalAmount(text: string, decimals: number): bigint | undefined {
  assertDecimals(decimals);
  if (typeof text !== 'string') return undefined;
  const match = WHOLE_UNITS_PATTERN.exec(text);
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  if (fraction.length > decimals) return undefined;
  // Base units are the digits with the fraction padded to `decimals`: one BigInt parse, no BigInt arithmetic.
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** A non-negative integer string of base units; no sign, no leading zeros, no exponent. */
export function parseBaseUnits(text: string): bigint | undefined {
  return typeof text === 'string' && BASE_UNITS_PATTERN.test(text) ? BigInt(text) : undefined;
}

/** Shortest whole-unit form: "0.0003559", "0", "12". */
export function formatWholeUnits(baseUnits: bigint, decimals: number): string {
  const [whole, fraction] = splitUnits(baseUnits, decimals);
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === ZERO_CODE) end -= 1;
  return end === 0 ? whole : `${whole}.${fraction.slice(0, end)}`;
}

/** Every decimal digit written out: "0.00035590", "0.499500000000000000". */
export function formatFixedPoint(baseUnits: bigint, decimals: number): string {
  const [whole, fraction] = splitUnits(baseUnits, decimals);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

const ZERO_CODE = 48;

// Split as text, not by BigInt division: every uncached answer about an order formats two amounts.
function splitUnits(baseUnits: bigint, decimals: number): [whole: string, fraction: string] {
  assertDecimals(decimals);
  if (baseUnits < 0n) throw new RangeError(`amounts are never negative, got ${baseUnits}`);
  const digits = baseUnits.toString();
  if (decimals === 0) return [digits, ''];
  const padded = digits.length > decimals ? digits : digits.padStart(decimals + 1, '0');
  const point = padded.length - decimals;
  return [padded.slice(0, point), padded.slice(point)];
}

function assertDecimals(decimals: number): void {
  if (!Number.isSafeInteger(decimals) || decimals < 0) {
    throw new RangeError(`decimals must be a non-negative integer, got ${decimals}`);
  }
}

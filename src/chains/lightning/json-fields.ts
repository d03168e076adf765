/** Reading a node's JSON answers without trusting their shape: anything unexpected reads as absent. */

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function stringAt(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberAt(record: Record<string, unknown> | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

export function booleanAt(record: Record<string, unknown> | undefined, key: string): boolean | undefined {
  const value = record?.[key];
  return typeof value === 'boolean' ? value : undefined;
}

/** An amount as a whole number of base units: LND sends int64 as decimal strings, CLN as JSON numbers. */
export function amountAt(record: Record<string, unknown> | undefined, key: string): bigint | undefined {
  const value = record?.[key];
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

export function arrayAt(record: Record<string, unknown> | undefined, key: string): unknown[] {
  const value = record?.[key];
  return Array.isArray(value) ? (value as unknown[]) : [];
}

const DASHED_UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPACT_UUID_PATTERN = /^[0-9a-f]{32}$/i;

/**
 * Clients send order ids in upper case or without dashes; the service keeps one spelling,
 * lowercase and dashed. Undefined for anything that is not a UUID.
 */
export function normalizeOrderId(raw: string): string | undefined {
  if (typeof raw !== 'string') return undefined;
  if (DASHED_UUID_PATTERN.test(raw)) return raw.toLowerCase();
  if (!COMPACT_UUID_PATTERN.test(raw)) return undefined;
  const hex = raw.toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The swap contract identifies an order by the 16 bytes of its UUID. */
export function orderIdToBytes16(id: string): `0x${string}` {
  const normalized = normalizeOrderId(id);
  if (normalized === undefined) throw new Error(`not an order id: ${JSON.stringify(id)}`);
  return `0x${normalized.replaceAll('-', '')}`;
}

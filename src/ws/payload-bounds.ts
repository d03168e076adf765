import type { ErrorToken } from '../domain/errors.js';

export interface PayloadBounds {
  /** Largest payload as JSON text, in bytes. */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and objects; the payload itself, if an array or object, is level 1. */
  readonly maxDepth: number;
}

/**
 * Measures an event payload against its bounds without recursion and without serializing it: the
 * walk stops as soon as a bound is passed, so no payload, however deep or large, can make it throw.
 * Bytes are counted as `JSON.stringify` would write them. Binary attachments are refused: no event
 * carries any. Resolves to the refusal token, or undefined for a payload within bounds.
 */
export function checkPayloadBounds(payload: unknown, bounds: PayloadBounds): ErrorToken | undefined {
  if (payload === undefined) return undefined;
  let bytes = 0;
  const pending: { value: unknown; depth: number }[] = [{ value: payload, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') bytes += Buffer.byteLength(JSON.stringify(value));
    else if (typeof value === 'number') bytes += Number.isFinite(value) ? String(value).length : 4;
    else if (typeof value === 'boolean') bytes += value ? 4 : 5;
    else if (value === null) bytes += 4;
    else if (typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 'InvalidPayload';
    else if (depth + 1 > bounds.maxDepth) return 'InvalidPayload';
    else if (Array.isArray(value)) {
      // Brackets and the commas between elements.
      bytes += 2 + Math.max(0, value.length - 1);
      for (const element of value) pending.push({ value: element, depth: depth + 1 });
    } else {
      const entries = Object.entries(value);
      // Braces, commas, and a colon per entry.
      bytes += 2 + Math.max(0, entries.length - 1) + entries.length;
      for (const [key, element] of entries) {
        bytes += Buffer.byteLength(JSON.stringify(key));
        pending.push({ value: element, depth: depth + 1 });
      }
    }
    if (bytes > bounds.maxBytes) return 'PayloadTooLarge';
  }
  return undefined;
}

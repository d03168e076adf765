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
 * Bytes are counted as `JSON.stringify` would write them, without writing them: each value is looked at once. Binary attachments are refused: no event
 * carries any. Resolves to the refusal token, or undefined for a payload within bounds.
 */
export function checkPayloadBounds(payload: unknown, bounds: PayloadBounds): ErrorToken | undefined {
  if (payload === undefined) return undefined;
  let bytes = 0;
  const pending: { value: unknown; depth: number }[] = [{ value: payload, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') bytes += jsonStringBytes(value);
    else if (typeof value === 'number') bytes += Number.isFinite(value) ? String(value).length : 4;
    else if (typeof value === 'boolean') bytes += value ? 4 : 5;
    else if (value === null) bytes += 4;
    else if (typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
      return 'InvalidPayload';
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
        bytes += jsonStringBytes(key);
        pending.push({ value: element, depth: depth + 1 });
      }
    }
    if (bytes > bounds.maxBytes) return 'PayloadTooLarge';
  }
  return undefined;
}

/**
 * Any character JSON.stringify writes escaped (quote, backslash, controls, lone surrogates) or that may be half of
 * a surrogate pair: everything but the characters it writes as they are.
 */
const ESCAPED_OR_SURROGATE = /[^ !#-[\]-\ud7ff\ue000-\uffff]/;

/**
 * The UTF-8 bytes of a string as JSON.stringify writes it, quotes included. A string without anything to escape
 * (a transaction's hex, an address) is measured natively in one pass; others character by character.
 */
export function jsonStringBytes(text: string): number {
  if (!ESCAPED_OR_SURROGATE.test(text)) return Buffer.byteLength(text) + 2;
  let bytes = 2;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x20)
      bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

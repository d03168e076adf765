import { parseIsoTimestamp } from './iso-timestamp.js';
import { FieldError } from './snapshot-error.js';

/** Readers for parsed JSON that name the offending field when a value has the wrong shape. */
export type JsonObject = { readonly [key: string]: unknown };

export function fieldPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

export function fail(field: string, problem: string): never {
  throw new FieldError(field, problem);
}

/** A JSON object; with `allowedKeys`, one holding no other field. */
export function readObject(value: unknown, field: string, allowedKeys?: ReadonlySet<string>): JsonObject {
  if (value === undefined) fail(field, 'required');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be an object');
  if (allowedKeys !== undefined) {
    for (const key of Object.keys(value)) {
      if (!allowedKeys.has(key)) fail(fieldPath(field, key), 'unknown field');
    }
  }
  return value as JsonObject;
}

export function readArray(value: unknown, field: string): readonly unknown[] {
  if (value === undefined) fail(field, 'required');
  if (!Array.isArray(value)) fail(field, 'must be an array');
  return value;
}

/** A string without NUL: PostgreSQL's text refuses it and SQLite's keeps it, so it is refused on both. */
export function readString(value: unknown, field: string): string {
  if (value === undefined) fail(field, 'required');
  if (typeof value !== 'string') fail(field, 'must be a string');
  if (value.includes('\0')) fail(field, 'must not contain a NUL character');
  return value;
}

/**
 * The largest amount or payment requirement a snapshot holds: a uint256's largest value, more than any
 * contract holds. PostgreSQL keeps these in NUMERIC(78, 0), up to 78 digits, and SQLite as text: both hold
 * every value up to it exactly, so a snapshot imports alike on either store.
 */
export const MAX_SNAPSHOT_UNITS = 2n ** 256n - 1n;

/** A number whose whole part has more digits than MAX_SNAPSHOT_UNITS (78) is above it, whatever follows. */
const ABOVE_MAX_SNAPSHOT_UNITS = /^[1-9]\d{78}/;

/**
 * Base units `parse` reads from `text` (undefined when malformed), refused above MAX_SNAPSHOT_UNITS. A text
 * with a longer whole part than the bound's is refused before parsing: BigInt's time grows with the square
 * of the digits.
 */
export function readBoundedUnits(
  text: string,
  field: string,
  parse: (text: string) => bigint | undefined,
): bigint | undefined {
  const tooLarge = 'must be at most 2^256 - 1 base units (the largest uint256)';
  if (ABOVE_MAX_SNAPSHOT_UNITS.test(text)) fail(field, tooLarge);
  const units = parse(text);
  if (units !== undefined && units > MAX_SNAPSHOT_UNITS) fail(field, tooLarge);
  return units;
}

/** Absent stays absent; `null` is not absence, since an export never writes it. */
export function readOptionalString(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : readString(value, field);
}

export function readBoolean(value: unknown, field: string): boolean {
  if (value === undefined) fail(field, 'required');
  if (typeof value !== 'boolean') fail(field, 'must be true or false');
  return value;
}

export function readNonNegativeInteger(value: unknown, field: string): number {
  if (value === undefined) fail(field, 'required');
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(field, 'must be a non-negative integer');
  }
  return value;
}

export function readOptionalNonNegativeInteger(value: unknown, field: string): number | undefined {
  return value === undefined ? undefined : readNonNegativeInteger(value, field);
}

export function readNonNegativeNumber(value: unknown, field: string): number {
  if (value === undefined) fail(field, 'required');
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(field, 'must be a non-negative number');
  return value;
}

/** ISO 8601 UTC with milliseconds (`2019-11-05T20:11:08.821Z`), a real calendar time; ms since the epoch. */
export function readTimestamp(value: unknown, field: string): number {
  const ms = parseIsoTimestamp(readString(value, field));
  if (ms === undefined) fail(field, 'must be an ISO 8601 UTC time with milliseconds, like 2019-11-05T20:11:08.821Z');
  return ms;
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { isoTimestamp } from '../../src/wire/iso-timestamp.js';

/** Date's own range: 100,000,000 days either side of the epoch. */
const DATE_LIMIT_MS = 8.64e15;
const YEAR_0_MS = -62_167_219_200_000;
const YEAR_10000_MS = 253_402_300_800_000;

const builtin = (ms: number) => new Date(ms).toISOString();

test('writes every millisecond of years 0000 to 9999 as toISOString does', () => {
  fc.assert(
    fc.property(fc.integer({ min: YEAR_0_MS, max: YEAR_10000_MS - 1 }), (ms) => {
      assert.equal(isoTimestamp(ms), builtin(ms));
    }),
    { seed: PROPERTY_SEED, numRuns: 20_000 },
  );
});

test('the edges of days, months, leap years and centuries, and of the years it writes itself', () => {
  const edges = [
    YEAR_0_MS,
    -1,
    0,
    Date.UTC(1972, 1, 29, 23, 59, 59, 999),
    Date.UTC(1900, 2, 1),
    Date.UTC(2000, 1, 29, 12),
    Date.UTC(2100, 1, 28, 23, 59, 59, 999),
    Date.UTC(2100, 2, 1),
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    YEAR_10000_MS - 1,
  ];
  for (const ms of edges) assert.equal(isoTimestamp(ms), builtin(ms), `at ${ms}`);
  assert.equal(isoTimestamp(YEAR_0_MS), '0000-01-01T00:00:00.000Z');
});

test('outside years 0000-9999, and for fractions of a millisecond, answers as the builtin does', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: YEAR_10000_MS, max: DATE_LIMIT_MS }),
        fc.integer({ min: -DATE_LIMIT_MS, max: YEAR_0_MS - 1 }),
        fc.double({ min: -DATE_LIMIT_MS, max: DATE_LIMIT_MS, noNaN: true }),
      ),
      (ms) => {
        assert.equal(isoTimestamp(ms), builtin(ms));
      },
    ),
    { seed: PROPERTY_SEED, numRuns: 5_000 },
  );
  assert.equal(isoTimestamp(YEAR_10000_MS), '+010000-01-01T00:00:00.000Z');
});

test('refuses what is no time, as toISOString does', () => {
  for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, DATE_LIMIT_MS + 1]) {
    assert.throws(() => isoTimestamp(ms), RangeError);
  }
});

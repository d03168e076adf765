import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readTimestamp } from '../../src/snapshot/fields.js';
import { FieldError } from '../../src/snapshot/snapshot-error.js';

const TIMESTAMP_PROBLEM = 'must be an ISO 8601 UTC time with milliseconds, like 2019-11-05T20:11:08.821Z';

/** readTimestamp as it was, on Date: the shape, then a round trip that refuses what Date rolls over. */
function referenceTimestamp(text: string): number | 'refused' {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString() !== text ? 'refused' : ms;
}

function verdict(text: string): number | 'refused' {
  try {
    return readTimestamp(text, 'createdAt');
  } catch (error) {
    assert.ok(error instanceof FieldError);
    assert.equal(error.message, `createdAt: ${TIMESTAMP_PROBLEM}`);
    return 'refused';
  }
}

/** `count` digits, mostly around the edges a calendar has. */
function digits(count: number, edges: readonly number[]): fc.Arbitrary<string> {
  return fc
    .oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 10 ** count - 1 }))
    .map((value) => String(value).padStart(count, '0'));
}

const shaped = fc
  .tuple(
    digits(4, [0, 1, 4, 99, 100, 400, 1582, 1600, 1900, 1969, 1970, 2000, 2019, 2020, 2100, 2400, 9999]),
    digits(2, [0, 1, 2, 3, 4, 6, 9, 11, 12, 13]),
    digits(2, [0, 1, 28, 29, 30, 31, 32]),
    digits(2, [0, 23, 24]),
    digits(2, [0, 59, 60]),
    digits(2, [0, 59, 60]),
    digits(3, [0, 999]),
  )
  .map(([year, month, day, hour, minute, second, ms]) => `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}Z`);

/** A timestamp with one character replaced, dropped or added: other separators, letters, non-ASCII digits. */
const damaged = fc
  .tuple(shaped, fc.nat(), fc.constantFrom('edit', 'drop', 'add'), fc.constantFrom(...'0179-:.TZtz +/\u0663\uff10'))
  .map(([text, position, edit, character]) => {
    const index = position % text.length;
    const rest = edit === 'add' ? text.slice(index) : text.slice(index + 1);
    return text.slice(0, index) + (edit === 'drop' ? '' : character) + rest;
  });

describe('readTimestamp', () => {
  test('accepts exactly the timestamps Date round-trips, with the same time', () => {
    fc.assert(
      fc.property(fc.oneof(shaped, shaped, damaged, fc.string()), (text) => {
        assert.equal(verdict(text), referenceTimestamp(text), text);
      }),
      { seed: 20261123, numRuns: 20_000 },
    );
  });

  test('reads every day of every year Date can be asked about in this shape', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('0000-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }), (ms) => {
        assert.equal(verdict(new Date(ms).toISOString()), ms);
      }),
      { seed: 20261123, numRuns: 20_000 },
    );
  });

  for (const text of [
    '2019-02-30T00:00:00.000Z',
    '2019-02-29T00:00:00.000Z',
    '1900-02-29T00:00:00.000Z',
    '2019-01-01T24:00:00.000Z',
    '2019-12-31T23:59:60.000Z',
    '2019-11-05T20:11:08Z',
    '2019-11-05T20:11:08.821+00:00',
    '2019-11-05 20:11:08.821Z',
    '+002019-11-05T20:11:08.821Z',
  ]) {
    test(`refuses ${text}`, () => {
      assert.equal(verdict(text), 'refused');
    });
  }

  test('reads leap days and the ends of the range', () => {
    assert.equal(verdict('2020-02-29T12:00:00.000Z'), Date.UTC(2020, 1, 29, 12));
    assert.equal(verdict('2000-02-29T00:00:00.000Z'), Date.UTC(2000, 1, 29));
    assert.equal(verdict('0000-01-01T00:00:00.000Z'), -62_167_219_200_000);
    assert.equal(verdict('9999-12-31T23:59:59.999Z'), 253_402_300_799_999);
  });

  test('refuses a value that is not a string as before', () => {
    assert.throws(() => readTimestamp(1_573_000_000_000, 'createdAt'), /^FieldError: createdAt: must be a string$/);
  });
});

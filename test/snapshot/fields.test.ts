import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { parseBaseUnits } from '../../src/domain/amounts.js';
import { MAX_SNAPSHOT_UNITS, readBoundedUnits, readTimestamp } from '../../src/snapshot/fields.js';
import { FieldError } from '../../src/snapshot/snapshot-error.js';

const TIMESTAMP_PROBLEM = 'must be an ISO 8601 UTC time with milliseconds, like 2019-11-05T20:11:08.821Z';

function verdict(text: string): number | 'refused' {
  try {
    return readTimestamp(text, 'createdAt');
  } catch (error) {
    assert.ok(error instanceof FieldError);
    assert.equal(error.message, `createdAt: ${TIMESTAMP_PROBLEM}`);
    return 'refused';
  }
}

describe('readTimestamp', () => {
  test('reads every day of every year Date can be asked about in this shape', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0000-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }),
        (ms) => {
          assert.equal(verdict(new Date(ms).toISOString()), ms);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: 20_000 },
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
    '2019-11-05T20:11:08.821z',
    '2019-11-05T20:11:08.821Z ',
    '2019-11-05T20:11:08.821Z\n',
    '\u0662019-11-05T20:11:08.821Z',
    '',
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

  test('accepts exactly what Date.parse and the toISOString round trip accept, out-of-range fields included', () => {
    const digits = (count: number) => fc.stringMatching(new RegExp(`^[0-9]{${count}}$`));
    const dateRoundTrip = (text: string) => {
      const ms = Date.parse(text);
      return Number.isNaN(ms) || new Date(ms).toISOString() !== text ? 'refused' : ms;
    };
    fc.assert(
      fc.property(
        fc.tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3)),
        ([year, month, day, hour, minute, second, ms]) => {
          const text = `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}Z`;
          assert.equal(verdict(text), dateRoundTrip(text));
        },
      ),
      { seed: PROPERTY_SEED, numRuns: 20_000 },
    );
  });

  test('refuses a value that is not a string as before', () => {
    assert.throws(() => readTimestamp(1_573_000_000_000, 'createdAt'), /^FieldError: createdAt: must be a string$/);
  });
});

describe('readBoundedUnits', () => {
  const ABOVE = 'maxBaseUnits: must be at most 2^256 - 1 base units (the largest uint256)';

  test('takes every value up to 2^256 - 1, refuses the next, and leaves a malformed text to its caller', () => {
    assert.equal(readBoundedUnits(MAX_SNAPSHOT_UNITS.toString(), 'maxBaseUnits', parseBaseUnits), MAX_SNAPSHOT_UNITS);
    assert.equal(readBoundedUnits('0', 'maxBaseUnits', parseBaseUnits), 0n);
    assert.throws(() => readBoundedUnits((MAX_SNAPSHOT_UNITS + 1n).toString(), 'maxBaseUnits', parseBaseUnits), {
      message: ABOVE,
    });
    assert.equal(readBoundedUnits('12a', 'maxBaseUnits', parseBaseUnits), undefined);
  });

  test('refuses a number longer than the bound before parsing it (BigInt of a million digits takes about 0.1 s)', () => {
    let parsed = 0;
    const parse = (text: string) => {
      parsed += 1;
      return parseBaseUnits(text);
    };
    const started = performance.now();
    assert.throws(() => readBoundedUnits('9'.repeat(1_000_000), 'maxBaseUnits', parse), { message: ABOVE });
    assert.throws(() => readBoundedUnits(`1${'0'.repeat(78)}`, 'maxBaseUnits', parse), { message: ABOVE });
    assert.equal(parsed, 0);
    assert.ok(performance.now() - started < 50);
  });
});

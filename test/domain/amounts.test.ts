import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { formatFixedPoint, formatWholeUnits, parseBaseUnits, parseDecimalAmount } from '../../src/domain/amounts.js';

describe('parseDecimalAmount', () => {
  test('reads whole units into base units exactly', () => {
    assert.equal(parseDecimalAmount('0.0003559', 8), 35_590n);
    assert.equal(parseDecimalAmount('0.00035590', 8), 35_590n);
    assert.equal(parseDecimalAmount('12', 8), 1_200_000_000n);
    assert.equal(parseDecimalAmount('0', 8), 0n);
    assert.equal(parseDecimalAmount('0.499500000000000000', 18), 499_500_000_000_000_000n);
    assert.equal(parseDecimalAmount('21000000.00000001', 8), 2_100_000_000_000_001n);
    assert.equal(parseDecimalAmount('7', 0), 7n);
  });

  test('keeps precision a float would lose', () => {
    assert.equal(parseDecimalAmount('123456789.123456789123456789', 18), 123_456_789_123_456_789_123_456_789n);
  });

  test('refuses more fraction digits than the asset has', () => {
    assert.equal(parseDecimalAmount('0.000000001', 8), undefined);
    assert.equal(parseDecimalAmount('1.5', 0), undefined);
  });

  for (const text of [
    '',
    '.5',
    '1.',
    '-1',
    '+1',
    '1e5',
    ' 1',
    '1 ',
    '01',
    '00',
    '0x10',
    '1,5',
    '1.2.3',
    'NaN',
    'Infinity',
    '１',
  ]) {
    test(`refuses ${JSON.stringify(text)}`, () => {
      assert.equal(parseDecimalAmount(text, 8), undefined);
    });
  }

  test('refuses values that are not strings', () => {
    assert.equal(parseDecimalAmount(5 as unknown as string, 8), undefined);
  });

  test('refuses a nonsensical number of decimals', () => {
    assert.throws(() => parseDecimalAmount('1', -1), RangeError);
    assert.throws(() => parseDecimalAmount('1', 1.5), RangeError);
  });
});

describe('parseBaseUnits', () => {
  test('reads integer strings', () => {
    assert.equal(parseBaseUnits('0'), 0n);
    assert.equal(parseBaseUnits('4294967'), 4_294_967n);
    assert.equal(parseBaseUnits('499500000000000000000000'), 499_500_000_000_000_000_000_000n);
  });

  for (const text of ['', '-1', '+1', '01', '1.0', '1e3', ' 1', '0x1f', 'abc']) {
    test(`refuses ${JSON.stringify(text)}`, () => {
      assert.equal(parseBaseUnits(text), undefined);
    });
  }

  test('refuses numbers', () => {
    assert.equal(parseBaseUnits(10 as unknown as string), undefined);
  });
});

describe('formatWholeUnits', () => {
  test('writes the shortest form', () => {
    assert.equal(formatWholeUnits(35_590n, 8), '0.0003559');
    assert.equal(formatWholeUnits(0n, 8), '0');
    assert.equal(formatWholeUnits(1_200_000_000n, 8), '12');
    assert.equal(formatWholeUnits(1n, 18), '0.000000000000000001');
    assert.equal(formatWholeUnits(1_050_000_000_000_000_000n, 18), '1.05');
    assert.equal(formatWholeUnits(42n, 0), '42');
  });

  test('refuses negative amounts', () => {
    assert.throws(() => formatWholeUnits(-1n, 8), RangeError);
  });
});

describe('formatFixedPoint', () => {
  test('writes every decimal', () => {
    assert.equal(formatFixedPoint(35_590n, 8), '0.00035590');
    assert.equal(formatFixedPoint(499_500_000_000_000_000n, 18), '0.499500000000000000');
    assert.equal(formatFixedPoint(0n, 8), '0.00000000');
    assert.equal(formatFixedPoint(1_200_000_000n, 8), '12.00000000');
    assert.equal(formatFixedPoint(42n, 0), '42');
  });

  test('refuses negative amounts', () => {
    assert.throws(() => formatFixedPoint(-5n, 18), RangeError);
  });
});

describe('round trips', () => {
  const amounts = fc.bigInt({ min: 0n, max: 10n ** 30n });
  const decimals = fc.constantFrom(8, 18);

  test('whole units parse back to the same base units', () => {
    fc.assert(
      fc.property(amounts, decimals, (baseUnits, places) => {
        assert.equal(parseDecimalAmount(formatWholeUnits(baseUnits, places), places), baseUnits);
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('fixed point parses back to the same base units and has exactly `decimals` fraction digits', () => {
    fc.assert(
      fc.property(amounts, decimals, (baseUnits, places) => {
        const text = formatFixedPoint(baseUnits, places);
        assert.equal(text.split('.')[1]?.length, places);
        assert.equal(parseDecimalAmount(text, places), baseUnits);
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('whole-unit form never ends in a zero after the point or in a bare point', () => {
    fc.assert(
      fc.property(amounts, decimals, (baseUnits, places) => {
        assert.doesNotMatch(formatWholeUnits(baseUnits, places), /(\.\d*0$)|(\.$)/);
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('base units print and parse back', () => {
    fc.assert(
      fc.property(amounts, (baseUnits) => {
        assert.equal(parseBaseUnits(baseUnits.toString()), baseUnits);
      }),
      { seed: PROPERTY_SEED },
    );
  });
});

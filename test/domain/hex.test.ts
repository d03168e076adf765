/**
 * The hex checks against the regular expressions that define them, spelled out per length, over hex
 * strings of the lengths that matter with a character changed, added or dropped, the change often one
 * that sits next to a hex digit, case-folds to one or looks like one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { isHexBytes, isHexOfLength, isZeroXHex } from '../../src/domain/hex.js';

const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
const stranger = fc.constantFrom(...'gGxX/:@`- \n\u0000\u00aa\u00c1\u00e9\u0663\uff41\u212a');

/** `length` hex digits, mostly with one character changed, added or dropped. */
function nearlyHex(length: number): fc.Arbitrary<string> {
  const edit = fc.constantFrom('none', 'change', 'add', 'drop');
  return fc
    .tuple(fc.array(hexDigit, { minLength: length, maxLength: length }), edit, fc.nat(), fc.oneof(stranger, hexDigit))
    .map(([digits, kind, position, character]) => {
      const at = position % (digits.length + 1);
      if (kind === 'change') digits.splice(at, 1, character);
      if (kind === 'add') digits.splice(at, 0, character);
      if (kind === 'drop') digits.splice(at, 1);
      return digits.join('');
    });
}

describe('hex checks', () => {
  test('isHexOfLength matches /^[0-9a-fA-F]{n}$/', () => {
    const digitsAndText = fc
      .constantFrom(32, 40, 64)
      .chain((digits) => fc.tuple(fc.constant(digits), nearlyHex(digits)));
    fc.assert(
      fc.property(digitsAndText, ([digits, text]) => {
        assert.equal(isHexOfLength(text, digits), new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text), text);
      }),
      { seed: PROPERTY_SEED, numRuns: 3000 },
    );
  });

  test('isHexBytes matches /^(?:[0-9a-fA-F]{2})+$/', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 80 }).chain(nearlyHex), (text) => {
        assert.equal(isHexBytes(text), /^(?:[0-9a-fA-F]{2})+$/.test(text), text);
      }),
      { seed: PROPERTY_SEED, numRuns: 3000 },
    );
  });

  test('isZeroXHex matches /^0x[0-9a-fA-F]{n}$/', () => {
    const prefix = fc.constantFrom('0x', '0x', '0X', 'x0', '0', '', '00', 'ox');
    const digitsAndText = fc
      .constantFrom(40, 64)
      .chain((digits) => fc.tuple(fc.constant(digits), prefix, nearlyHex(digits)));
    fc.assert(
      fc.property(digitsAndText, ([digits, start, rest]) => {
        const text = start + rest;
        assert.equal(isZeroXHex(text, digits), new RegExp(`^0x[0-9a-fA-F]{${digits}}$`).test(text), text);
      }),
      { seed: PROPERTY_SEED, numRuns: 3000 },
    );
  });
});

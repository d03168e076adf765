import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import {
  BECH32_CHECKSUM,
  BECH32M_CHECKSUM,
  bytesToWords,
  joinBech32,
  splitBech32,
  wordsToBytes,
} from '../../src/domain/bech32.js';

describe('bech32', () => {
  test('joins the BIP-173 and BIP-350 test vectors', () => {
    assert.equal(joinBech32('a', []), 'a12uel5l');
    assert.equal(joinBech32('a', [], BECH32M_CHECKSUM), 'a1lqfn3a');
    const segwit = splitBech32('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    assert.ok(segwit !== undefined);
    assert.equal(joinBech32(segwit.prefix, segwit.words), 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
  });

  test('splits what it joins, checksum holding, for any prefix and words', () => {
    const prefix = fc.stringMatching(/^[a-z0-9]{1,10}$/);
    const words = fc.array(fc.integer({ min: 0, max: 31 }), { minLength: 1, maxLength: 120 });
    fc.assert(
      fc.property(prefix, words, fc.constantFrom(BECH32_CHECKSUM, BECH32M_CHECKSUM), (p, w, constant) => {
        const parts = splitBech32(joinBech32(p, w, constant));
        assert.deepEqual(parts && { ...parts, words: [...parts.words] }, { prefix: p, words: w, checksum: constant });
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('refuses what no bech32 text can hold', () => {
    assert.throws(() => joinBech32('', [1]), RangeError);
    assert.throws(() => joinBech32('a', [32]), RangeError);
  });

  test('regroups bytes into words and back, padding with zero bits', () => {
    assert.deepEqual(bytesToWords([0xff]), [31, 28]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        const back = wordsToBytes(bytesToWords(bytes));
        // Five words hold 25 bits: a byte count that is not a multiple of 5 gains one zero byte at most.
        assert.deepEqual(back.subarray(0, bytes.length), Buffer.from(bytes));
        assert.ok(back.subarray(bytes.length).every((byte) => byte === 0));
      }),
      { seed: PROPERTY_SEED },
    );
  });
});

/**
 * The HTLC template's bytes, which the service writes and the wallet reads (src/domain/htlc-script.ts): every set of
 * terms reads back from its script, and no other bytes read as the template, whatever they are; the service's
 * `parseHtlcRedeemScript` adds only the curve check of the claim key.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compileHtlcScript, LOCKTIME_THRESHOLD, readHtlcScript } from '../../src/domain/htlc-script.js';
import { buildHtlcRedeemScript, parseHtlcRedeemScript } from '../../src/domain/bitcoin.js';
import { PROPERTY_SEED } from '../support/property-seed.js';

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const parts = fc.record({
  paymentHash: bytes(32),
  claimPublicKey: fc.tuple(fc.constantFrom(0x02, 0x03), bytes(32)).map(([prefix, x]) => Uint8Array.of(prefix, ...x)),
  refundPublicKeyHash: bytes(20),
  refundableAtBlockHeight: fc.integer({ min: 1, max: LOCKTIME_THRESHOLD - 1 }),
});
const toHex = (value: Uint8Array) => Buffer.from(value).toString('hex');

function edited(script: Uint8Array, index: number, byte: number, edit: 'set' | 'insert' | 'delete'): Uint8Array {
  const before = script.subarray(0, index);
  if (edit === 'set') return Uint8Array.of(...before, byte, ...script.subarray(index + 1));
  if (edit === 'insert') return Uint8Array.of(...before, byte, ...script.subarray(index));
  return Uint8Array.of(...before, ...script.subarray(index + 1));
}

describe('the HTLC template', () => {
  test('every set of terms reads back from its script, and the script is the service’s', () => {
    fc.assert(
      fc.property(parts, (terms) => {
        const script = compileHtlcScript(terms);
        assert.deepEqual(readHtlcScript(script), { ...terms });
        const parsed = parseHtlcRedeemScript(toHex(script));
        // The service refuses a claim key off the curve; when it takes one, its script is these bytes.
        if (parsed !== undefined) assert.equal(buildHtlcRedeemScript(parsed), toHex(script));
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('a script with one byte changed, added or removed reads as the template only when it still is one', () => {
    fc.assert(
      fc.property(
        parts,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom('set', 'insert', 'delete'),
        (terms, at, byte, edit) => {
          const script = compileHtlcScript(terms);
          const changed = edited(script, at % script.length, byte, edit);
          const read = readHtlcScript(changed);
          if (read !== undefined) assert.deepEqual(compileHtlcScript(read), changed);
        },
      ),
      { seed: PROPERTY_SEED },
    );
  });

  test('garbage never throws', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (garbage) => {
        const read = readHtlcScript(garbage);
        if (read !== undefined) assert.deepEqual(compileHtlcScript(read), garbage);
      }),
      { seed: PROPERTY_SEED },
    );
    for (const value of [undefined, null, 'a8', 42, [0xa8], {}]) {
      assert.equal(readHtlcScript(value as unknown as Uint8Array), undefined);
    }
  });

  test('a height at or past the lock-time threshold, or below 1, is no block height the template takes', () => {
    const terms = {
      paymentHash: new Uint8Array(32),
      claimPublicKey: Uint8Array.of(2, ...new Uint8Array(32)),
      refundPublicKeyHash: new Uint8Array(20),
    };
    assert.equal(
      readHtlcScript(compileHtlcScript({ ...terms, refundableAtBlockHeight: LOCKTIME_THRESHOLD })),
      undefined,
    );
    assert.equal(readHtlcScript(compileHtlcScript({ ...terms, refundableAtBlockHeight: 0 })), undefined);
    assert.equal(readHtlcScript(compileHtlcScript({ ...terms, refundableAtBlockHeight: -5 })), undefined);
    assert.equal(
      readHtlcScript(compileHtlcScript({ ...terms, refundableAtBlockHeight: 16 }))?.refundableAtBlockHeight,
      16,
    );
  });
});

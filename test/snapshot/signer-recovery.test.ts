import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import secp256k1 from 'secp256k1';
import { recoverSignerKey as bundledRecovery } from '../../src/domain/bolt11-reader.js';
import { loadSystemRecovery } from '../../src/snapshot/signer-recovery.js';

const systemRecovery = loadSystemRecovery();
const bytesOf = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const privateKey = bytesOf(32).filter((key) => secp256k1.privateKeyVerify(key));
/** The group order n: r or s at or above it does not parse. */
const ORDER = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');

interface RecoveryCase {
  readonly signature: Uint8Array;
  readonly recoveryId: number;
  readonly signingHash: Uint8Array;
}

/** Real signatures, their recovery id sometimes wrong, s sometimes negated (high-S, which recovery accepts). */
const signed: fc.Arbitrary<RecoveryCase> = fc
  .record({ key: privateKey, hash: bytesOf(32), idOffset: fc.constantFrom(0, 0, 1, 2, 3), highS: fc.boolean() })
  .map(({ key, hash, idOffset, highS }) => {
    const { signature, recid } = secp256k1.ecdsaSign(hash, key);
    if (highS) {
      const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
      const negated = (BigInt(`0x${ORDER.toString('hex')}`) - s).toString(16).padStart(64, '0');
      signature.set(Buffer.from(negated, 'hex'), 32);
    }
    return { signature, recoveryId: (recid + idOffset) % 4, signingHash: hash };
  });

/** Random bytes, with r or s sometimes the group order itself. */
const arbitrary: fc.Arbitrary<RecoveryCase> = fc
  .record({
    signature: bytesOf(64),
    recoveryId: fc.integer({ min: 0, max: 3 }),
    signingHash: bytesOf(32),
    overflow: fc.constantFrom('none', 'r', 's'),
  })
  .map(({ signature, recoveryId, signingHash, overflow }) => {
    if (overflow !== 'none') signature.set(ORDER, overflow === 'r' ? 0 : 32);
    return { signature, recoveryId, signingHash };
  });

const hexOrNone = (key: Uint8Array | undefined) => (key === undefined ? 'none' : Buffer.from(key).toString('hex'));

describe(
  'the system libsecp256k1',
  { skip: systemRecovery === undefined && 'no libsecp256k1 on this machine (Debian: apt-get install libsecp256k1-1)' },
  () => {
    test('recovers the same key as the bundled library, or refuses the same signatures', () => {
      fc.assert(
        fc.property(fc.oneof(signed, arbitrary), ({ signature, recoveryId, signingHash }) => {
          assert.equal(
            hexOrNone(systemRecovery!(signature, recoveryId, signingHash)),
            hexOrNone(bundledRecovery(signature, recoveryId, signingHash)),
          );
        }),
        { seed: PROPERTY_SEED, numRuns: 2_000 },
      );
    });

    test("recovers the signer's own key", () => {
      const key = Buffer.alloc(32, 3);
      const hash = Buffer.alloc(32, 5);
      const { signature, recid } = secp256k1.ecdsaSign(hash, key);
      assert.equal(hexOrNone(systemRecovery!(signature, recid, hash)), hexOrNone(secp256k1.publicKeyCreate(key, true)));
    });

    test('refuses buffers of the wrong length instead of reading past them', () => {
      const { signature, recid } = secp256k1.ecdsaSign(Buffer.alloc(32, 5), Buffer.alloc(32, 3));
      assert.equal(systemRecovery!(signature.subarray(0, 63), recid, Buffer.alloc(32, 5)), undefined);
      assert.equal(systemRecovery!(signature, recid, Buffer.alloc(31, 5)), undefined);
    });
  },
);

test('a library that is missing, or lacks the recovery functions, is passed over', () => {
  assert.equal(loadSystemRecovery(['libsecp256k1-not-here.so']), undefined);
  assert.equal(loadSystemRecovery(['libc.so.6']), undefined);
});

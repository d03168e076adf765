import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import secp256k1 from 'secp256k1';
import { checkInvoiceSignature, type SignedInvoice } from '../../src/domain/bolt11-reader.js';
import { checkPackedSignatures, packSignatureChecks } from '../../src/snapshot/signature-batch.js';

const bytesOf = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const privateKey = bytesOf(32).filter((key) => secp256k1.privateKeyVerify(key));

/** A real signature of a random hash; its payee absent, the signer's key, or another key. */
const signedBySomeone: fc.Arbitrary<SignedInvoice> = fc
  .record({
    key: privateKey,
    otherKey: privateKey,
    hash: bytesOf(32),
    payee: fc.constantFrom('none', 'signer', 'other'),
  })
  .map(({ key, otherKey, hash: signingHash, payee }) => {
    const { signature, recid } = secp256k1.ecdsaSign(signingHash, key);
    const invoice = { signingHash: hex(signingHash), signature: hex(signature), recoveryId: recid };
    if (payee === 'none') return invoice;
    return { ...invoice, payee: hex(secp256k1.publicKeyCreate(payee === 'signer' ? key : otherKey, true)) };
  });

/** Random bytes where a signature goes: some recover a key, some recover none. */
const arbitraryBytes: fc.Arbitrary<SignedInvoice> = fc
  .record({
    signingHash: bytesOf(32).map(hex),
    signature: bytesOf(64).map(hex),
    recoveryId: fc.integer({ min: 0, max: 3 }),
    payee: fc.option(bytesOf(33).map(hex), { nil: undefined }),
  })
  .map(({ payee, ...rest }) => (payee === undefined ? rest : { ...rest, payee }));

test('a packed batch gets, check by check, the verdicts checkInvoiceSignature gives its invoices', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(signedBySomeone, arbitraryBytes), { maxLength: 24 }), (invoices) => {
      const expected = invoices.map((invoice) => (checkInvoiceSignature(invoice) === undefined ? 0 : 1));
      assert.deepStrictEqual([...checkPackedSignatures(packSignatureChecks(invoices))], expected);
    }),
    { seed: PROPERTY_SEED, numRuns: 200 },
  );
});

test('a signature holds unless its payee is another key, and a flipped bit in the hash breaks it', () => {
  const key = Buffer.alloc(32, 7);
  const signingHash = Buffer.alloc(32, 9);
  const { signature, recid } = secp256k1.ecdsaSign(signingHash, key);
  const signed = { signingHash: hex(signingHash), signature: hex(signature), recoveryId: recid };
  const signer = hex(secp256k1.publicKeyCreate(key, true));
  const other = hex(secp256k1.publicKeyCreate(Buffer.alloc(32, 8), true));
  const tampered = Buffer.from(signingHash);
  tampered[0]! ^= 1;
  const verdicts = checkPackedSignatures(
    packSignatureChecks([
      signed,
      { ...signed, payee: signer },
      { ...signed, payee: other },
      { ...signed, signingHash: hex(tampered), payee: signer },
    ]),
  );
  assert.deepStrictEqual([...verdicts], [1, 1, 0, 0]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { SignedInvoice } from '../../src/domain/bolt11-reader.js';
import { packSignatureChecks, unpackSignatureChecks } from '../../src/snapshot/signature-batch.js';

const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));

const signedInvoice: fc.Arbitrary<SignedInvoice> = fc
  .record({
    signingHash: hexOf(32),
    signature: hexOf(64),
    recoveryId: fc.integer({ min: 0, max: 3 }),
    payee: fc.option(hexOf(33), { nil: undefined }),
  })
  .map(({ payee, ...rest }) => (payee === undefined ? rest : { ...rest, payee }));

test('a batch of signature checks unpacks to exactly what was packed, payee keys included', () => {
  fc.assert(
    fc.property(fc.array(signedInvoice, { maxLength: 40 }), (invoices) => {
      assert.deepStrictEqual(unpackSignatureChecks(packSignatureChecks(invoices)), invoices);
    }),
    { seed: 20261123, numRuns: 300 },
  );
});

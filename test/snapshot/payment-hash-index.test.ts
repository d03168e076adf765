import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PaymentHashIndex } from '../../src/snapshot/payment-hash-index.js';

function randomHash(): string {
  return randomBytes(32).toString('hex');
}

// What the table does with a key (first index kept, growth) is tested through OrderIdIndex; here, the 8-word keys.
test('every one of 100,000 hashes keeps its first index after the table has grown; one never recorded has none', () => {
  const index = new PaymentHashIndex();
  const hashes = Array.from({ length: 100_000 }, (_, n) => createHash('sha256').update(String(n)).digest('hex'));
  hashes.forEach((hash, at) => assert.equal(index.recordFirst(hash, at), undefined));
  hashes.forEach((hash, at) => assert.equal(index.recordFirst(hash, at + 1), at, hash));
  assert.equal(index.recordFirst(randomHash(), 0), undefined);
});

test('hashes that differ in one 32-bit word only, the first or the last, are told apart', () => {
  const index = new PaymentHashIndex();
  const base = 'ab'.repeat(32);
  const hashes = [base, `ac${base.slice(2)}`, `${base.slice(0, 62)}ac`, `${base.slice(0, 30)}ff${base.slice(32)}`];
  hashes.forEach((hash, at) => assert.equal(index.recordFirst(hash, at), undefined));
  hashes.forEach((hash, at) => assert.equal(index.recordFirst(hash, at + 10), at));
});

test('only 64 lowercase hex digits are taken as a payment hash', () => {
  const index = new PaymentHashIndex();
  assert.throws(() => index.recordFirst('AB'.repeat(32), 0), /not a payment hash/);
  assert.throws(() => index.recordFirst('ab'.repeat(31), 0), /not a payment hash/);
  assert.throws(() => index.recordFirst(randomHash(), -1), RangeError);
});

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PaymentHashIndex } from '../../src/snapshot/payment-hash-index.js';

function randomHash(): string {
  return randomBytes(32).toString('hex');
}

test('a payment hash recorded once gives back its record index; one never recorded gives nothing', () => {
  const index = new PaymentHashIndex();
  const hash = randomHash();
  index.set(hash, 11);
  assert.equal(index.get(hash), 11);
  assert.equal(index.get(randomHash()), undefined);
  assert.equal(index.size, 1);
});

test('a hash recorded again keeps the index it was first recorded at', () => {
  const index = new PaymentHashIndex();
  const hash = randomHash();
  index.set(hash, 4);
  index.set(hash, 8);
  assert.equal(index.get(hash), 4);
  assert.equal(index.size, 1);
});

test('every one of 100,000 hashes is found at its index after the table has grown', () => {
  const index = new PaymentHashIndex();
  const hashes = Array.from({ length: 100_000 }, (_, n) => createHash('sha256').update(String(n)).digest('hex'));
  hashes.forEach((hash, at) => index.set(hash, at));
  assert.equal(index.size, hashes.length);
  hashes.forEach((hash, at) => assert.equal(index.get(hash), at, hash));
});

test('hashes that differ in one 32-bit word only, the first or the last, are told apart', () => {
  const index = new PaymentHashIndex();
  const base = 'ab'.repeat(32);
  const hashes = [base, `ac${base.slice(2)}`, `${base.slice(0, 62)}ac`, `${base.slice(0, 30)}ff${base.slice(32)}`];
  hashes.forEach((hash, at) => index.set(hash, at));
  hashes.forEach((hash, at) => assert.equal(index.get(hash), at));
});

test('only 64 lowercase hex digits are taken as a payment hash', () => {
  const index = new PaymentHashIndex();
  assert.throws(() => index.set('AB'.repeat(32), 0), /not a payment hash/);
  assert.throws(() => index.get('ab'.repeat(31)), /not a payment hash/);
  assert.throws(() => index.set(randomHash(), -1), RangeError);
});

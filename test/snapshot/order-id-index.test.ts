import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { OrderIdIndex } from '../../src/snapshot/order-id-index.js';

/** Ids as fixtures write them: all but the last digits equal. */
function countingId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

test('an id read once gives back its record index; one never read gives nothing', () => {
  const index = new OrderIdIndex();
  const id = randomUUID();
  assert.equal(index.recordFirst(id, 7), undefined);
  assert.equal(index.recordFirst(id, 8), 7);
  assert.equal(index.recordFirst(randomUUID(), 9), undefined);
});

test('a repeated id keeps the index it was first read at', () => {
  const index = new OrderIdIndex();
  const id = randomUUID();
  assert.equal(index.recordFirst(id, 3), undefined);
  assert.equal(index.recordFirst(id, 9), 3);
  assert.equal(index.recordFirst(id, 10), 3);
});

test('every one of 200,000 ids, random and counting, is found at its index after the table has grown', () => {
  const index = new OrderIdIndex();
  const ids = Array.from({ length: 100_000 }, (_, n) => [randomUUID(), countingId(n)]).flat();
  ids.forEach((id, at) => assert.equal(index.recordFirst(id, at), undefined, id));
  ids.forEach((id, at) => assert.equal(index.recordFirst(id, at + 1), at, id));
  assert.equal(index.recordFirst(countingId(100_000), 0), undefined);
});

test('ids that differ in one 32-bit word only are told apart', () => {
  const index = new OrderIdIndex();
  const ids = [
    '12345678-9abc-4def-8123-456789abcdef',
    '12345679-9abc-4def-8123-456789abcdef',
    '12345678-9abd-4def-8123-456789abcdef',
    '12345678-9abc-4def-8124-456789abcdef',
    '12345678-9abc-4def-8123-456789abcdee',
  ];
  ids.forEach((id, at) => assert.equal(index.recordFirst(id, at), undefined));
  ids.forEach((id, at) => assert.equal(index.recordFirst(id, at + 10), at));
});

test('only canonical ids and record indexes that fit are taken', () => {
  const index = new OrderIdIndex();
  assert.throws(() => index.recordFirst('12345678-9ABC-4DEF-8123-456789ABCDEF', 0), /not a canonical order id/);
  assert.throws(() => index.recordFirst('123456789abc4def8123456789abcdef', 0), /not a canonical order id/);
  assert.throws(() => index.recordFirst(randomUUID(), -1), RangeError);
  assert.throws(() => index.recordFirst(randomUUID(), 0x7fffffff), RangeError);
});

test('the id read at a record index is given back in canonical form; an index never recorded gives nothing', () => {
  const index = new OrderIdIndex();
  const ids = Array.from({ length: 5_000 }, (_, n) => (n % 2 === 0 ? randomUUID() : countingId(n)));
  ids.forEach((id, at) => index.recordFirst(id, at * 3));
  for (const at of [0, 1, 2_500, 4_999]) assert.equal(index.idAt(at * 3), ids[at]);
  assert.equal(index.idAt(1), undefined);
  assert.equal(index.idAt(-1), undefined);
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { normalizeOrderId, orderIdToBytes16 } from '../../src/domain/order-ids.js';

const ID = 'a61131f7-0b66-460e-b3d8-37d59f94b8aa';

describe('normalizeOrderId', () => {
  test('keeps a lowercase dashed UUID as it is', () => {
    assert.equal(normalizeOrderId(ID), ID);
  });

  test('lowercases an upper-case UUID', () => {
    assert.equal(normalizeOrderId(ID.toUpperCase()), ID);
  });

  test('adds the dashes to the 32-hex form', () => {
    assert.equal(normalizeOrderId('A61131F70B66460EB3D837D59F94B8AA'), ID);
  });

  for (const raw of [
    '',
    'a61131f7-0b66-460e-b3d8-37d59f94b8a',
    'a61131f7-0b66-460e-b3d8-37d59f94b8aaa',
    'a61131f70b66-460e-b3d8-37d59f94b8aa',
    'a61131f7-0b66-460e-b3d8-37d59f94b8ag',
    '{a61131f7-0b66-460e-b3d8-37d59f94b8aa}',
    ' a61131f7-0b66-460e-b3d8-37d59f94b8aa',
    'a61131f7-0b66-460e-b3d8-37d59f94b8aa\n',
    'a61131f70b66460eb3d837d59f94b8a',
    '../../etc/passwd',
  ]) {
    test(`refuses ${JSON.stringify(raw)}`, () => {
      assert.equal(normalizeOrderId(raw), undefined);
    });
  }

  test('every spelling of a random UUID normalizes to the same id', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        const canonical = uuid.toLowerCase();
        assert.equal(normalizeOrderId(uuid.toUpperCase()), canonical);
        assert.equal(normalizeOrderId(uuid.replaceAll('-', '')), canonical);
      }),
      { seed: PROPERTY_SEED },
    );
  });
});

describe('orderIdToBytes16', () => {
  test('is the UUID without dashes', () => {
    assert.equal(orderIdToBytes16(ID), '0xa61131f70b66460eb3d837d59f94b8aa');
    const id = randomUUID();
    assert.equal(orderIdToBytes16(id), `0x${id.replaceAll('-', '')}`);
  });

  test('refuses a non-UUID', () => {
    assert.throws(() => orderIdToBytes16('not-an-id'));
  });
});

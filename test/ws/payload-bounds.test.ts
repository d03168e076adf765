import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { boundedParser, nestingExceeds, packetDataStart } from '../../src/ws/bounded-parser.js';
import { checkPayloadBounds } from '../../src/ws/payload-bounds.js';

const LOOSE = { maxBytes: Number.MAX_SAFE_INTEGER, maxDepth: Number.MAX_SAFE_INTEGER };

function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

describe('checkPayloadBounds', () => {
  test('counts bytes exactly as JSON.stringify writes them', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const bytes = Buffer.byteLength(JSON.stringify(value));
        assert.equal(checkPayloadBounds(value, { ...LOOSE, maxBytes: bytes }), undefined);
        assert.equal(checkPayloadBounds(value, { ...LOOSE, maxBytes: bytes - 1 }), 'PayloadTooLarge');
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('refuses nesting past the bound with InvalidPayload, and never recurses', () => {
    assert.equal(checkPayloadBounds(nested(32), { ...LOOSE, maxDepth: 32 }), undefined);
    assert.equal(checkPayloadBounds({ a: nested(31) }, { ...LOOSE, maxDepth: 32 }), undefined);
    assert.equal(checkPayloadBounds(nested(33), { ...LOOSE, maxDepth: 32 }), 'InvalidPayload');
    // Far deeper than any stack: JSON.stringify overflows on it, the check must not.
    const abyss = nested(1_000_000);
    assert.throws(() => JSON.stringify(abyss), RangeError);
    assert.equal(checkPayloadBounds(abyss, { maxBytes: 16 * 1024, maxDepth: 32 }), 'InvalidPayload');
    assert.equal(checkPayloadBounds(abyss, { ...LOOSE, maxBytes: 1000 }), 'PayloadTooLarge');
  });

  test('refuses binary attachments, accepts an absent payload', () => {
    assert.equal(checkPayloadBounds({ data: Buffer.from('x') }, LOOSE), 'InvalidPayload');
    assert.equal(checkPayloadBounds(new Uint8Array(2), LOOSE), 'InvalidPayload');
    assert.equal(checkPayloadBounds(undefined, { maxBytes: 0, maxDepth: 0 }), undefined);
    assert.equal(checkPayloadBounds(null, { maxBytes: 4, maxDepth: 0 }), undefined);
  });
});

describe('nestingExceeds', () => {
  test('counts brackets and braces outside strings only', () => {
    assert.equal(nestingExceeds('42/user/v1,1["x",[[{"a":[1]}]]]', 4), true);
    assert.equal(nestingExceeds('42/user/v1,1["x",[[{"a":[1]}]]]', 5), false);
    assert.equal(nestingExceeds(`42["x","${'['.repeat(100)}"]`, 2), false);
    assert.equal(nestingExceeds(`42["x","\\"${'['.repeat(100)}"]`, 2), false);
    assert.equal(nestingExceeds(`42["x\\\\",${'['.repeat(3)}]]]]`, 3), true);
  });

  test("counts only the packet's JSON: a quote in an engine.io 3 namespace query cannot hide the nesting", () => {
    const deep = `["requestMarketRequirements",${'['.repeat(100)}${']'.repeat(100)}]`;
    for (const header of ['2/user/v1?a="b,900', '2/user/v1?a="b,', '51-/user/v1?",7', '2/user/v1,900', '2', '2900']) {
      const packet = `${header}${deep}`;
      assert.equal(packetDataStart(packet), header.length, header);
      assert.equal(nestingExceeds(packet, 64, packetDataStart(packet)), true, header);
      assert.throws(() => new (boundedParser(64).Decoder)().add(packet), /nested deeper than 64/, header);
    }
    assert.equal(packetDataStart('0/user/v1,'), 10);
    assert.equal(packetDataStart('0/user/v1?x=1'), 13);
  });

  test('agrees with the depth of any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const depth = depthOf(value);
        const text = JSON.stringify(value);
        assert.equal(nestingExceeds(text, depth), false);
        if (depth > 0) assert.equal(nestingExceeds(text, depth - 1), true);
      }),
      { seed: PROPERTY_SEED },
    );
  });
});

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

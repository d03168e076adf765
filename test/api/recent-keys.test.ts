import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecentKeys } from '../../src/api/recent-keys.js';

/** Distinct, well-spread 32-bit hashes, as FNV-1a gives the cache's keys. */
function hashOf(n: number): number {
  let hash = 0x811c9dc5;
  for (const char of `order ${n}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash;
}

describe('RecentKeys', () => {
  test('a key is unseen the first time and seen the next', () => {
    const recent = new RecentKeys(1024);
    assert.equal(recent.seenBefore(hashOf(1)), false);
    assert.equal(recent.seenBefore(hashOf(1)), true);
    assert.equal(recent.seenBefore(hashOf(2)), false);
  });

  test('in a cycle through fewer keys than the window, every key is seen from its second pass on', () => {
    const recent = new RecentKeys(16_384);
    const keys = Array.from({ length: 4096 }, (_, n) => hashOf(n));
    for (const hash of keys) recent.seenBefore(hash);
    for (let pass = 0; pass < 10; pass++) {
      const unseen = keys.filter((hash) => !recent.seenBefore(hash)).length;
      assert.equal(unseen, 0, `pass ${pass + 2}: ${unseen} keys of the cycle reported unseen`);
    }
  });

  test('a key stays seen for at least the window, and is forgotten after twice the window of other keys', () => {
    const window = 1000;
    const recent = new RecentKeys(window);
    recent.seenBefore(hashOf(-1));
    for (let n = 0; n < window; n++) recent.seenBefore(hashOf(n));
    assert.equal(recent.seenBefore(hashOf(-2)), false);
    for (let n = window; n < 2 * window; n++) recent.seenBefore(hashOf(n));
    assert.equal(recent.seenBefore(hashOf(-2)), true, 'added within the window');
    for (let n = 2 * window; n < 4 * window; n++) recent.seenBefore(hashOf(n));
    assert.equal(recent.seenBefore(hashOf(-1)), false, 'forgotten');
  });

  test('few keys never seen are reported seen', () => {
    const recent = new RecentKeys(16_384);
    for (let n = 0; n < 16_000; n++) recent.seenBefore(hashOf(n));
    let falselySeen = 0;
    for (let n = 1_000_000; n < 1_010_000; n++) {
      if (recent.seenBefore(hashOf(n))) falselySeen += 1;
    }
    assert.ok(falselySeen < 300, `${falselySeen} of 10,000 new keys reported seen`);
  });
});

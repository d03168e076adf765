import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyedRateLimiter, TokenBucket } from '../../src/domain/token-bucket.js';

describe('TokenBucket', () => {
  test('allows the burst, then refills at the sustained rate', () => {
    const bucket = new TokenBucket({ burst: 3, perSecond: 2 }, 0);
    assert.deepEqual([1, 2, 3, 4].map(() => bucket.tryTake(0)), [true, true, true, false]);
    assert.equal(bucket.tryTake(499), false);
    assert.equal(bucket.tryTake(500), true);
    assert.equal(bucket.tryTake(500), false);
    // A long pause refills up to the burst, no further.
    assert.deepEqual([1, 2, 3, 4].map(() => bucket.tryTake(60_000)), [true, true, true, false]);
  });
});

describe('KeyedRateLimiter', () => {
  test('limits each key on its own', () => {
    const limiter = new KeyedRateLimiter({ burst: 1, perSecond: 1 });
    assert.equal(limiter.tryTake('a', 0), true);
    assert.equal(limiter.tryTake('a', 0), false);
    assert.equal(limiter.tryTake('b', 0), true);
  });

  test('keeps at most maxKeys buckets, forgetting idle ones first', () => {
    const limiter = new KeyedRateLimiter({ burst: 1, perSecond: 1 }, 3);
    limiter.tryTake('busy', 900);
    limiter.tryTake('idle-1', 0);
    limiter.tryTake('idle-2', 0);
    limiter.tryTake('new', 1000);
    assert.ok(limiter.size <= 3);
    // "busy" took its token at 900 and has not refilled by 1000, so it was kept and is still limited.
    assert.equal(limiter.tryTake('busy', 1000), false);
    for (let index = 0; index < 100; index += 1) limiter.tryTake(`flood-${index}`, 1000);
    assert.ok(limiter.size <= 3);
  });
});

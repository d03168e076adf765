import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyedRateLimiter, TokenBucket } from '../../src/domain/token-bucket.js';

describe('TokenBucket', () => {
  test('allows the burst, then refills at the sustained rate', () => {
    const bucket = new TokenBucket({ burst: 3, perSecond: 2 }, 0);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => bucket.tryTake(0)),
      [true, true, true, false],
    );
    assert.equal(bucket.tryTake(499), false);
    assert.equal(bucket.tryTake(500), true);
    assert.equal(bucket.tryTake(500), false);
    // A long pause refills up to the burst, no further.
    assert.deepEqual(
      [1, 2, 3, 4].map(() => bucket.tryTake(60_000)),
      [true, true, true, false],
    );
  });

  test('a charge larger than what is left is refused but still taken: the bucket owes it until refilled', () => {
    const bytes = new TokenBucket({ burst: 1000, perSecond: 100 }, 0);
    assert.equal(bytes.charge(0, 600), true);
    assert.equal(bytes.owes(0), false);
    assert.equal(bytes.charge(0, 600), false);
    // 400 left, 600 taken: 200 owed, paid back at 100 a second, then 50 more held half a second later.
    assert.equal(bytes.owes(0), true);
    assert.equal(bytes.msUntilHolding(0, 50), 2500);
    assert.equal(bytes.charge(1000, 1), false);
    assert.equal(bytes.owes(2010), false);
    assert.equal(bytes.msUntilHolding(2010, 50), 500);
    // Never more than the burst is waited for.
    assert.equal(bytes.msUntilHolding(2010, 5000), 10_000);
    assert.equal(bytes.charge(4000, 100), true);
  });
});

describe('KeyedRateLimiter', () => {
  test('limits each key on its own', () => {
    const limiter = new KeyedRateLimiter({ burst: 1, perSecond: 1 });
    assert.equal(limiter.tryTake('a', 0), true);
    assert.equal(limiter.tryTake('a', 0), false);
    assert.equal(limiter.tryTake('b', 0), true);
  });

  test('charges and owes per key', () => {
    const limiter = new KeyedRateLimiter({ burst: 10, perSecond: 10 });
    assert.equal(limiter.charge('a', 0, 15), false);
    assert.equal(limiter.owes('a', 0), true);
    assert.equal(limiter.msUntilHolding('a', 0, 5), 1000);
    assert.equal(limiter.owes('b', 0), false);
    assert.equal(limiter.msUntilHolding('b', 0, 5), 0);
    assert.equal(limiter.charge('b', 0, 10), true);
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

/**
 * The bench's counting of a Bitcoin watcher's node requests (bench/bitcoin-watch): passes told apart by their
 * quiet gaps, requests in a time window, the busiest second, and the verdict on the figures.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WatchResult } from '../../../bench/bitcoin-watch/measure.js';
import { verdictOf } from '../../../bench/bitcoin-watch/verdict.js';
import { busiestWindow, passesOf, requestsBetween } from '../../../bench/bitcoin-watch/request-clock.js';

// 3 requests before the clock started; a pass of 4 at 0-40 ms, a pass of 10,004 over 1.5 s, a pass of 4.
const samples = [
  { at: 0, count: 5 },
  { at: 40, count: 7 },
  { at: 10_040, count: 1_007 },
  { at: 10_540, count: 6_007 },
  { at: 11_540, count: 10_011 },
  { at: 21_540, count: 10_015 },
];

describe('counting a watcher’s requests', () => {
  test('a gap longer than the quiet time starts a new pass; each pass counts what it added', () => {
    assert.deepEqual(passesOf(3, samples, 5_000), [
      { start: 0, end: 40, requests: 4 },
      { start: 10_040, end: 11_540, requests: 10_004 },
      { start: 21_540, end: 21_540, requests: 4 },
    ]);
    assert.equal(passesOf(3, samples, 20_000).length, 1, 'gaps under the quiet time stay in one pass');
    assert.deepEqual(passesOf(3, [], 5_000), []);
  });

  test('requests in a window count from the sample at or before each end', () => {
    assert.equal(requestsBetween(3, samples, 40, 11_540), 10_004);
    assert.equal(requestsBetween(3, samples, -1, 100), 4);
    assert.equal(requestsBetween(3, samples, 11_600, 21_000), 0);
  });

  test('the busiest second is the most requests within any second', () => {
    // The 1,000 noted at 10,040 ms and the 5,000 at 10,540 ms; the 4,004 at 11,540 ms fall in a second of their own.
    assert.equal(busiestWindow(3, samples, 1_000), 6_000);
  });

  test('the verdict: at 10,000 orders, at most 20 req/s on average and every funding heard under 5 s', () => {
    const result: WatchResult = {
      orders: 10_000,
      requestsPerBlock: 2,
      blockPassRequests: 6,
      quietPassRequests: 4,
      requestsPerMinute: 60,
      averagePerSecond: 1.0,
      busiestSecond: 30,
      latenciesMs: [1_000, 4_999],
      otherStates: [],
    };
    assert.equal(verdictOf(result, 2), 'met');
    assert.equal(verdictOf({ ...result, latenciesMs: [1_000, 5_000] }, 2), 'MISSED: max ≥ 5 s');
    assert.equal(verdictOf({ ...result, latenciesMs: [1_000] }, 2), 'MISSED: 1 fundings unheard before the block');
    assert.equal(verdictOf({ ...result, averagePerSecond: 20.5 }, 2), 'MISSED: > 20 req/s');
    assert.equal(verdictOf({ ...result, orders: 100, averagePerSecond: 99 }, 2), '', 'no target at 100 orders');
  });
});

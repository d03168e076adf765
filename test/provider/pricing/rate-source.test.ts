import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { RATE_CLOCK_SKEW_MS, urlRate, type UrlRateOptions } from '../../../src/provider/pricing/rate-source.js';

const ETHER = 10n ** 18n;

describe('a rate read from a URL', () => {
  let server: Server;
  let base: string;
  /** What the endpoint answers next: a body, or `hang` (never answers). */
  let answer = '';
  let nowMs = 1_000_000_000_000;

  before(async () => {
    server = createServer((_request, response) => {
      if (answer === 'hang') return;
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const source = (overrides: Partial<UrlRateOptions> = {}) =>
    urlRate({
      url: `${base}/rate`,
      field: 'data.rate',
      timestampField: 'data.time',
      decimals: 18,
      minimum: 5n * ETHER,
      maximum: 100n * ETHER,
      maxAgeMs: 60_000,
      // A first request in a loaded test run took more than 300 ms; the 'hang' case waits this out once.
      timeoutMs: 1_500,
      maxBytes: 1_024,
      now: () => nowMs,
      ...overrides,
    });
  const body = (rate: unknown, time = nowMs / 1000) => JSON.stringify({ data: { rate, time } });

  test('a decimal in bounds is the rate, exactly, in base units; digits beyond the decimals round up', async () => {
    const rate = source({ decimals: 6, minimum: 5_000_000n, maximum: 100_000_000n });
    answer = body('30.1234561');
    await rate.refresh();
    assert.equal(rate.current(), 30_123_457n);
    assert.equal(rate.problem, undefined);
    answer = body(29.5);
    await rate.refresh();
    assert.equal(rate.current(), 29_500_000n, 'a JSON number is read by its decimal text');
  });

  test('absurd, stale, malformed, oversized or slow answers are refused and the last good rate kept', async () => {
    const rate = source();
    answer = body('30');
    await rate.refresh();
    assert.equal(rate.current(), 30n * ETHER);
    for (const [bad, problem] of [
      [body('3000'), /outside the configured bounds/],
      [body('-30'), /no decimal/],
      [body('1e3'), /no decimal/],
      [body('30', nowMs / 1000 - 120), /stale/],
      ['not json', /not JSON/],
      [body('30') + ' '.repeat(2_000), /more than 1024 bytes/],
      ['hang', /abort|timeout/i],
    ] as const) {
      answer = bad;
      await rate.refresh();
      assert.match(rate.problem ?? '', problem);
      assert.equal(rate.current(), 30n * ETHER);
    }
  });

  test('an answer dated beyond the clock skew in the future, or timed in milliseconds, is refused as a stale one is', async () => {
    const rate = source();
    answer = body('30');
    await rate.refresh();
    for (const [bad, problem] of [
      [body('31', nowMs), /can only be milliseconds; Unix seconds are expected/],
      [body('31', 1e12), /can only be milliseconds/],
      [body('31', nowMs / 1000 + RATE_CLOCK_SKEW_MS / 1000 + 1), /dated in the future/],
      [body('31', nowMs / 1000 + 10 * 365 * 86_400), /dated in the future/],
    ] as const) {
      answer = bad;
      await rate.refresh();
      assert.match(rate.problem ?? '', problem);
      assert.equal(rate.current(), 30n * ETHER, 'the last good rate is kept');
    }
    answer = body('32', nowMs / 1000 + RATE_CLOCK_SKEW_MS / 1000);
    await rate.refresh();
    assert.equal(rate.problem, undefined, 'a clock ahead by the skew at most is believed');
    assert.equal(rate.current(), 32n * ETHER);
  });

  test('a rate older than its maximum age is unknown: no quote until a read succeeds', async () => {
    const rate = source();
    answer = body('40');
    await rate.refresh();
    nowMs += 60_001;
    assert.equal(rate.current(), undefined);
    answer = body('41');
    await rate.refresh();
    assert.equal(rate.current(), 41n * ETHER);
  });
});

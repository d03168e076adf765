/**
 * Where a market's rate comes from: base units of the on-chain asset for one bitcoin. `current()` is
 * undefined while the rate is unknown or too old, and then the provider does not quote.
 */
export interface RateSource {
  current(): bigint | undefined;
  /** Reads the rate again; a failure leaves the last good rate until it grows too old. */
  refresh(): Promise<void>;
  /** Why the last refresh failed, for the log; undefined after a success. */
  readonly problem: string | undefined;
}

export function fixedRate(rate: bigint): RateSource {
  return { current: () => rate, refresh: () => Promise.resolve(), problem: undefined };
}

export interface UrlRateOptions {
  /** A JSON endpoint (http or https). */
  url: string;
  /** Dotted path to the rate in the answer (`data.rate`): whole on-chain units per bitcoin, a string or a number. */
  field: string;
  /**
   * Dotted path to the answer's own time in Unix seconds, when it has one: an answer older than `maxAgeMs`,
   * dated more than `RATE_CLOCK_SKEW_MS` in the future, or timed in milliseconds is refused.
   */
  timestampField?: string;
  /** The on-chain asset's decimals, to turn the rate into base units. */
  decimals: number;
  /** Rates outside these bounds (base units per bitcoin) are refused as absurd. */
  minimum: bigint;
  maximum: bigint;
  /** A rate older than this is unknown. */
  maxAgeMs: number;
  timeoutMs: number;
  /** Answers larger than this are refused unread. */
  maxBytes: number;
  now: () => number;
}

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/** How far in the future an answer's own time may be: the two clocks' skew, not a replay or another unit. */
export const RATE_CLOCK_SKEW_MS = 60_000;

/**
 * Unix seconds below this are before the year 5138; milliseconds at or above it are any time after
 * 1973, so a time at or above it can only be milliseconds.
 */
const SECONDS_BELOW = 1e11;

/**
 * A rate read from a URL: a bounded fetch (time, size, no redirects), a decimal the answer must hold
 * at `field`, within the configured bounds, and fresh. Digits beyond the asset's decimals round up,
 * so the provider never prices below the rate it read.
 */
export function urlRate(options: UrlRateOptions): RateSource {
  let last: { rate: bigint; atMs: number } | undefined;
  let problem: string | undefined;
  return {
    current: () => (last !== undefined && options.now() - last.atMs <= options.maxAgeMs ? last.rate : undefined),
    get problem() {
      return problem;
    },
    async refresh() {
      try {
        const answer = await fetchJson(options);
        const rate = readRate(answer, options);
        last = { rate, atMs: options.now() };
        problem = undefined;
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
    },
  };
}

async function fetchJson(options: UrlRateOptions): Promise<unknown> {
  const response = await fetch(options.url, {
    signal: AbortSignal.timeout(options.timeoutMs),
    redirect: 'error',
    headers: { accept: 'application/json' },
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the rate URL answered HTTP ${response.status}`);
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) throw new Error('the rate URL answered no body');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const read = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
    if (read.done) break;
    const { value } = read;
    size += value.byteLength;
    if (size > options.maxBytes) {
      await reader.cancel();
      throw new Error(`the rate URL answered more than ${options.maxBytes} bytes`);
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new Error('the rate URL answered something that is not JSON');
  }
}

function readRate(answer: unknown, options: UrlRateOptions): bigint {
  if (options.timestampField !== undefined) {
    const stamp = at(answer, options.timestampField);
    if (typeof stamp !== 'number' || !Number.isFinite(stamp)) {
      throw new Error(`the rate answer has no Unix time at ${options.timestampField}`);
    }
    if (Math.abs(stamp) >= SECONDS_BELOW) {
      throw new Error(
        `the rate answer's time at ${options.timestampField} (${stamp}) can only be milliseconds; Unix seconds are expected`,
      );
    }
    const ageMs = options.now() - stamp * 1000;
    if (ageMs > options.maxAgeMs) throw new Error('the rate answer is stale');
    if (-ageMs > RATE_CLOCK_SKEW_MS) throw new Error('the rate answer is dated in the future');
  }
  const value = at(answer, options.field);
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  const match = typeof text === 'string' ? DECIMAL.exec(text) : null;
  if (match === null) throw new Error(`the rate answer has no decimal at ${options.field}`);
  const [, whole = '0', fraction = ''] = match;
  const kept = fraction.slice(0, options.decimals).padEnd(options.decimals, '0');
  const roundUp = /[1-9]/.test(fraction.slice(options.decimals)) ? 1n : 0n;
  const rate = BigInt(whole + kept) + roundUp;
  if (rate < options.minimum || rate > options.maximum) {
    throw new Error(`the rate ${String(text)} is outside the configured bounds`);
  }
  return rate;
}

function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The count of a node's requests, noted with the time it changed (ms, `performance.now()`). */
export interface CountSample {
  readonly at: number;
  readonly count: number;
}

/** One poll of the watcher as the node saw it: requests closer together than the quiet time. */
export interface Pass {
  readonly start: number;
  readonly end: number;
  readonly requests: number;
}

/**
 * Splits the samples into passes: a request after `quietMs` without any starts a new one. The watcher waits its
 * whole poll interval (10 s by default) after each pass, and a pass asks without pausing, so the gaps are plain.
 */
export function passesOf(initialCount: number, samples: readonly CountSample[], quietMs: number): Pass[] {
  const passes: Pass[] = [];
  let previous = { at: Number.NEGATIVE_INFINITY, count: initialCount };
  let current: { start: number; end: number; requests: number } | undefined;
  for (const sample of samples) {
    const added = sample.count - previous.count;
    if (current === undefined || sample.at - previous.at > quietMs) {
      if (current !== undefined) passes.push(current);
      current = { start: sample.at, end: sample.at, requests: added };
    } else {
      current.end = sample.at;
      current.requests += added;
    }
    previous = sample;
  }
  if (current !== undefined) passes.push(current);
  return passes;
}

/** The requests made in (from, to]. */
export function requestsBetween(
  initialCount: number,
  samples: readonly CountSample[],
  from: number,
  to: number,
): number {
  const countAt = (time: number) => {
    for (let index = samples.length - 1; index >= 0; index--)
      if (samples[index]!.at <= time) return samples[index]!.count;
    return initialCount;
  };
  return countAt(to) - countAt(from);
}

/** The most requests in any window of `windowMs` ending at a sample. */
export function busiestWindow(initialCount: number, samples: readonly CountSample[], windowMs: number): number {
  let busiest = 0;
  let first = 0;
  for (const sample of samples) {
    while (samples[first]!.at <= sample.at - windowMs) first++;
    const before = first === 0 ? initialCount : samples[first - 1]!.count;
    busiest = Math.max(busiest, sample.count - before);
  }
  return busiest;
}

/** How often the clock looks at the node's request log: far finer than the gaps between passes. */
const SAMPLE_EVERY_MS = 10;

/** Notes when a test node's request log grows, so requests can be counted per pass and per time window. */
export class RequestClock {
  readonly initialCount: number;
  readonly samples: CountSample[] = [];
  private readonly startedAt = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly requests: readonly unknown[]) {
    this.initialCount = requests.length;
    this.timer = setInterval(() => this.look(), SAMPLE_EVERY_MS);
  }

  private look(): void {
    const count = this.requests.length;
    if (count !== (this.samples.at(-1)?.count ?? this.initialCount))
      this.samples.push({ at: performance.now(), count });
  }

  /** Passes that ended at least `quietMs` ago, and so are whole. */
  finishedPasses(quietMs: number): Pass[] {
    this.look();
    const now = performance.now();
    return passesOf(this.initialCount, this.samples, quietMs).filter((pass) => now - pass.end > quietMs);
  }

  /** When the log last grew; when the clock started if it has not. */
  lastRequestAt(): number {
    this.look();
    return this.samples.at(-1)?.at ?? this.startedAt;
  }

  between(from: number, to: number): number {
    this.look();
    return requestsBetween(this.initialCount, this.samples, from, to);
  }

  /** The most requests in any one second from `time` on. */
  busiestSecondSince(time: number): number {
    this.look();
    const since = this.samples.filter((sample) => sample.at >= time);
    return busiestWindow(this.initialCount + this.between(Number.NEGATIVE_INFINITY, time), since, 1_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface RateLimit {
  /** Requests allowed at once after a quiet period. */
  readonly burst: number;
  /** Sustained requests per second. */
  readonly perSecond: number;
}

/** A token bucket: `burst` tokens, refilled continuously at `perSecond`. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly limit: RateLimit,
    now: number,
  ) {
    this.tokens = limit.burst;
    this.updatedAt = now;
  }

  tryTake(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** A full bucket remembers nothing a fresh one would not. */
  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.limit.burst;
  }

  private refill(now: number): void {
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(this.limit.burst, this.tokens + elapsedSeconds * this.limit.perSecond);
    this.updatedAt = now;
  }
}

/** One bucket per key (a client address), with memory bounded however many keys show up. */
export class KeyedRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly maxKeys = 10_000,
  ) {}

  tryTake(key: string, now: number): boolean {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      this.makeRoom(now);
      bucket = new TokenBucket(this.limit, now);
      this.buckets.set(key, bucket);
    }
    return bucket.tryTake(now);
  }

  get size(): number {
    return this.buckets.size;
  }

  private makeRoom(now: number): void {
    if (this.buckets.size < this.maxKeys) return;
    for (const [key, bucket] of this.buckets) {
      if (bucket.isFull(now)) this.buckets.delete(key);
    }
    // Still full of busy keys: forget the oldest, which at worst grants that key a fresh burst.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

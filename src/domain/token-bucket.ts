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

  /**
   * Takes `amount` tokens whether or not the bucket holds them, leaving it owing the rest: what was already spent
   * (bytes read off a connection) is paid for. True when the bucket held `amount` before.
   */
  charge(now: number, amount: number): boolean {
    this.refill(now);
    const held = this.tokens >= amount;
    this.tokens -= amount;
    return held;
  }

  /** Whether the bucket owes: more was charged than it held. */
  owes(now: number): boolean {
    this.refill(now);
    return this.tokens < 0;
  }

  /** Milliseconds until the bucket holds `amount` (at most its burst) again; 0 when it does. */
  msUntilHolding(now: number, amount: number): number {
    this.refill(now);
    const wanted = Math.min(amount, this.limit.burst);
    return this.tokens >= wanted ? 0 : Math.ceil(((wanted - this.tokens) / this.limit.perSecond) * 1000);
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
    return this.bucketOf(key, now).tryTake(now);
  }

  /** `TokenBucket.charge` on the key's bucket. */
  charge(key: string, now: number, amount: number): boolean {
    return this.bucketOf(key, now).charge(now, amount);
  }

  /** Whether the key's bucket owes; a key without one owes nothing. */
  owes(key: string, now: number): boolean {
    return this.buckets.get(key)?.owes(now) ?? false;
  }

  /** `TokenBucket.msUntilHolding` of the key's bucket; 0 for a key without one. */
  msUntilHolding(key: string, now: number, amount: number): number {
    return this.buckets.get(key)?.msUntilHolding(now, amount) ?? 0;
  }

  private bucketOf(key: string, now: number): TokenBucket {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      this.makeRoom(now);
      bucket = new TokenBucket(this.limit, now);
      this.buckets.set(key, bucket);
    }
    return bucket;
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

import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { KeyedRateLimiter, type RateLimit } from '../domain/token-bucket.js';
import type { RateLimitStore } from '../store/store.js';

/**
 * Rate limits per client address, counted across every instance through the store (one atomic upsert per
 * request on PostgreSQL; in memory on SQLite, which one process serves). While the store cannot be reached each
 * instance counts on its own, so the limits still hold, per instance, during an outage.
 */
export class AddressLimits {
  private readonly fallback = new Map<RateLimit, KeyedRateLimiter>();
  private outageLogged = false;

  constructor(
    private readonly store: RateLimitStore,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  async take(kind: string, address: string, limit: RateLimit): Promise<boolean> {
    const key = `${kind}:${address}`;
    try {
      const taken = await this.store.takeRateLimitToken(key, limit);
      this.outageLogged = false;
      return taken;
    } catch (error) {
      if (!this.outageLogged)
        this.logger.warn({ err: error }, 'rate limits counted per instance until the store is back');
      this.outageLogged = true;
      let limiter = this.fallback.get(limit);
      if (limiter === undefined) {
        limiter = new KeyedRateLimiter(limit);
        this.fallback.set(limit, limiter);
      }
      return limiter.tryTake(key, this.now());
    }
  }
}

/** Open connections per client address on this instance, both namespaces together. */
export class ConnectionCap {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerAddress: number) {}

  /** Counts the socket until it disconnects; false, counting nothing, when its address is at the cap. */
  admit(socket: Socket, address: string): boolean {
    const count = this.open.get(address) ?? 0;
    if (count >= this.maxPerAddress) return false;
    this.open.set(address, count + 1);
    socket.once('disconnect', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left <= 0) this.open.delete(address);
      else this.open.set(address, left);
    });
    return true;
  }
}

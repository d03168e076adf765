import { KeyedRateLimiter, type RateLimit } from '../../domain/token-bucket.js';
import type { RateLimitStore } from '../store.js';

/** One process serves a SQLite database, so its memory is the whole count. */
export function sqliteRateLimits(): RateLimitStore {
  const rateLimiters = new Map<RateLimit, KeyedRateLimiter>();
  return {
    async takeRateLimitToken(key, limit) {
      let limiter = rateLimiters.get(limit);
      if (limiter === undefined) {
        limiter = new KeyedRateLimiter(limit);
        rateLimiters.set(limit, limiter);
      }
      return limiter.tryTake(key, Date.now());
    },
  };
}

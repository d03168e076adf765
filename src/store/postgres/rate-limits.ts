import type { RateLimitStore } from '../store.js';
import type { PostgresContext } from './context.js';
import { PRUNE_RATE_LIMIT_BUCKETS, TAKE_RATE_LIMIT_TOKEN } from './queries.js';

/** How many rate limit tokens an instance takes between two prunings of the buckets table. */
const RATE_LIMIT_PRUNE_EVERY = 10_000;

export function postgresRateLimits({ pool }: PostgresContext): RateLimitStore {
  let takes = 0;
  return {
    async takeRateLimitToken(key, limit) {
      takes += 1;
      if (takes % RATE_LIMIT_PRUNE_EVERY === 0) await pool.query(PRUNE_RATE_LIMIT_BUCKETS);
      const taken = await pool.query({ ...TAKE_RATE_LIMIT_TOKEN, values: [key, limit.burst, limit.perSecond] });
      return taken.rowCount === 1;
    },
  };
}

import type { RateLimitStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardRateLimits(inner: RateLimitStore, guard: Guard): RateLimitStore {
  return {
    takeRateLimitToken: (key, limit) => guard(() => inner.takeRateLimitToken(key, limit)),
  };
}

import type { TokenStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardTokens(inner: TokenStore, guard: Guard): TokenStore {
  return {
    addToken: (token, market) => guard(() => inner.addToken(token, market)),
  };
}

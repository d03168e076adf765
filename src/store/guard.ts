import type { StoreOutage } from './availability.js';

/** Runs one store call: a failure to reach the database becomes ServiceUnavailable, an answer ends an outage. */
export type Guard = <T>(call: () => Promise<T>) => Promise<T>;

export function guardFor(outage: StoreOutage): Guard {
  return async (call) => {
    let result;
    try {
      result = await call();
    } catch (error) {
      throw outage.translate(error);
    }
    outage.answered();
    return result;
  };
}

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

/** The names of `Role`'s methods that answer with a promise: the calls that reach the database. */
export type AsyncMethodName<Role> = {
  [Name in keyof Role]: Role[Name] extends (...args: never[]) => Promise<unknown> ? Name : never;
}[keyof Role];

/** Every method to guard, as the keys of an object literal: the compiler refuses one left out or one too many. */
export type MethodList<Name extends PropertyKey> = { readonly [Key in Name]: true };

type AsyncMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * `inner`'s methods named in `methods`, each running its call through `guard`. The wrappers are built once,
 * here, so a call costs what a hand-written wrapper costs: no lookup by name and no proxy on the way.
 */
export function guardMethods<Role, Name extends AsyncMethodName<Role>>(
  inner: Role,
  methods: MethodList<Name>,
  guard: Guard,
): Pick<Role, Name> {
  const guarded: Partial<Record<Name, AsyncMethod>> = {};
  for (const name of Object.keys(methods) as Name[]) {
    // Name only names methods answering with a promise (AsyncMethodName); TypeScript cannot follow that
    // through the generic Role, hence the casts, which stay inside this function.
    const method = (inner[name] as AsyncMethod).bind(inner);
    guarded[name] = (...args) => guard(() => method(...args));
  }
  return guarded as Pick<Role, Name>;
}

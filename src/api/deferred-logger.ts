import type { FastifyBaseLogger } from 'fastify';

/**
 * A request's logger, made on first use. pino serializes a child logger's bindings (the request id)
 * as it makes the child, and Fastify makes one for every request; the API logs a request only when
 * it fails (or at debug), so most requests never need theirs.
 */
export function deferredChildLogger(makeChild: () => FastifyBaseLogger): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined;
  return new Proxy({} as FastifyBaseLogger, {
    get(_target, property) {
      child ??= makeChild();
      const value: unknown = Reflect.get(child, property, child);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(child) : value;
    },
    set(_target, property, value) {
      child ??= makeChild();
      return Reflect.set(child, property, value, child);
    },
  });
}

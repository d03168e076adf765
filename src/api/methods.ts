/**
 * Which HTTP methods the API routes. Every path is read-only, but it is registered for every method
 * Node can parse so that a known path with the wrong method is recognised (405), not mistaken for an
 * unknown path (404).
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { METHODS } from 'node:http';

export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export function acceptEveryHttpMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
}

/** Methods to register a read route with; Fastify derives HEAD from GET itself. */
export function routeMethods(app: FastifyInstance): HTTPMethods[] {
  return app.supportedMethods.filter((method) => method !== 'HEAD');
}

export function isReadMethod(method: string): boolean {
  return READ_METHODS.has(method);
}

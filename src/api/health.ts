import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply } from 'fastify';
import type { ReadinessVerdict } from '../engine/operations/readiness.js';
import { routeMethods } from './methods.js';
import { healthzSchema, readyzSchema } from './schemas.js';

export interface HealthRoutesOptions {
  /** Whether the instance can serve; without it the instance is ready whenever it answers. */
  readonly readiness?: () => Promise<ReadinessVerdict>;
}

const TEXT = 'text/plain; charset=utf-8';

function sendStatus(reply: FastifyReply, status: number, body: string): FastifyReply {
  // A probe's answer is about this moment: no cache may keep it.
  return reply.code(status).type(TEXT).header('cache-control', 'no-store').send(body);
}

/** Liveness and readiness for load balancers and orchestrators (docs/operations.md). */
export const healthRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: HealthRoutesOptions }> = async (
  app,
  { readiness },
) => {
  const method = routeMethods(app);

  app.route({
    method,
    url: '/healthz',
    schema: healthzSchema,
    handler: async (_request, reply) => sendStatus(reply, 200, 'OK'),
  });

  app.route({
    method,
    url: '/readyz',
    schema: readyzSchema,
    handler: async (_request, reply) => {
      const verdict = readiness === undefined ? { ready: true as const } : await readiness();
      return verdict.ready ? sendStatus(reply, 200, 'Ready') : sendStatus(reply, 503, verdict.token);
    },
  });
};

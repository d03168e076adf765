import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { routeMethods } from './methods.js';
import { metricsSchema } from './schemas.js';

export interface MetricsRoutesOptions {
  /** The exposition in Prometheus' text format, and its content type. */
  readonly exposition: () => Promise<string>;
  readonly contentType: string;
}

/** `/metrics` for Prometheus (docs/operations.md). */
export const metricsRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: MetricsRoutesOptions }> = async (
  app,
  { exposition, contentType },
) => {
  app.route({
    method: routeMethods(app),
    url: '/metrics',
    schema: metricsSchema,
    handler: async (_request, reply) =>
      reply
        .type(contentType)
        .header('cache-control', 'no-store')
        .send(await exposition()),
  });
};

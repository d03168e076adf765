import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply } from 'fastify';
import { routeMethods } from './methods.js';
import { FIND_ORDERS_ROUTE, ONE_ORDER_ROUTES, type OneOrderQuery, type OrderAnswer } from './order-read-routes.js';
import type { OrderReads } from './order-reads.js';
import { refuseWithTokens } from './schemas.js';

export interface OrderRoutesOptions {
  /** The answers, shared with the read lane. */
  readonly reads: OrderReads;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON text already serialized with the route's schema (`OrderReads`). Takes the reply untyped: a
 * route's typed reply accepts only the unserialized view.
 */
function sendSerialized(reply: FastifyReply, body: string): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

/**
 * Sends an answer given at once (a cache hit: the handler returns nothing, Fastify's way for a handler that
 * sent its reply) or once read (awaiting the reply resolves once it is sent).
 */
function send(reply: FastifyReply, answer: OrderAnswer): void | Promise<void> {
  if (typeof answer === 'string') {
    sendSerialized(reply, answer);
    return;
  }
  return answer.then(async (body) => {
    await sendSerialized(reply, body);
  });
}

/** The order routes of `order-read-routes.ts`; each route's schema documents it, validates its request and defines its body. */
export const orderRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: OrderRoutesOptions }> = async (
  app,
  { reads },
) => {
  const method = routeMethods(app);

  app.route({
    method,
    url: FIND_ORDERS_ROUTE.url,
    schema: FIND_ORDERS_ROUTE.schema,
    schemaErrorFormatter: refuseWithTokens(FIND_ORDERS_ROUTE.queryTokens),
    handler: (request, reply) =>
      send(reply, FIND_ORDERS_ROUTE.read(reads, request.query.invoiceHash, request.query.onchainTicker)),
  });

  for (const { url, schema, read, queryTokens } of ONE_ORDER_ROUTES) {
    app.route({
      method,
      url,
      schema,
      ...(queryTokens === undefined ? {} : { schemaErrorFormatter: refuseWithTokens(queryTokens) }),
      handler: (request, reply) => send(reply, read(reads, request.params.id, request.query as OneOrderQuery)),
    });
  }
};

import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply } from 'fastify';
import { routeMethods } from './methods.js';
import type { OrderReads } from './order-reads.js';
import {
  findOrdersQueryTokens,
  findOrdersSchema,
  fundingDetailsSchema,
  getOrderSchema,
  orderStateSchema,
  refuseWithTokens,
  refundSchema,
  transactionsSchema,
} from './schemas.js';

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
function send(reply: FastifyReply, answer: string | Promise<string>): void | Promise<void> {
  if (typeof answer === 'string') {
    sendSerialized(reply, answer);
    return;
  }
  return answer.then(async (body) => {
    await sendSerialized(reply, body);
  });
}

/** The order routes; each route's schema documents it, validates its request and defines its body. */
export const orderRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: OrderRoutesOptions }> = async (
  app,
  { reads },
) => {
  const method = routeMethods(app);

  app.route({
    method,
    url: '/api/orders',
    schema: findOrdersSchema,
    schemaErrorFormatter: refuseWithTokens(findOrdersQueryTokens),
    handler: (request, reply) =>
      send(reply, reads.ordersByInvoiceHash(request.query.invoiceHash, request.query.onchainTicker)),
  });

  app.route({
    method,
    url: '/api/orders/:id',
    schema: getOrderSchema,
    handler: (request, reply) => send(reply, reads.order(request.params.id)),
  });

  app.route({
    method,
    url: '/api/orders/:id/state',
    schema: orderStateSchema,
    handler: (request, reply) => send(reply, reads.state(request.params.id)),
  });

  app.route({
    method,
    url: '/api/orders/:id/fundDetails',
    schema: fundingDetailsSchema,
    handler: (request, reply) => send(reply, reads.fundDetails(request.params.id)),
  });

  app.route({
    method,
    url: '/api/orders/:id/transactions',
    schema: transactionsSchema,
    handler: (request, reply) => send(reply, reads.transactions(request.params.id)),
  });

  app.route({
    method,
    url: '/api/orders/:id/refund',
    schema: refundSchema,
    handler: (request, reply) => send(reply, reads.refund(request.params.id)),
  });
};

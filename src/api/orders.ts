import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply } from 'fastify';
import { LnswapError } from '../domain/errors.js';
import { deriveFundingDetails } from '../domain/funding.js';
import { findMarket, marketOf, type Market } from '../domain/markets.js';
import type { OrderRecord } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { deriveRefundDetails } from '../domain/refund.js';
import type { Store } from '../store/store.js';
import { OrderResponses } from './order-responses.js';
import type { ResponseCacheCounts } from './http-metrics.js';
import { routeMethods } from './methods.js';
import {
  presentFundingDetails,
  presentOrder,
  presentOrderSummary,
  presentRefund,
  presentTransactions,
} from '../wire/presenters.js';
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
  readonly store: Store;
  /** Budget for serialized answers about orders; 0 turns the cache off. */
  readonly responseCacheBytes: number;
  /** Counts the cache's hits and misses, for metrics. */
  readonly cacheCounts?: ResponseCacheCounts;
}

/** What a route read, and what it depends on (`order:ID`, `invoice:HASH`, `configuration`). */
interface ReadAnswer {
  readonly view: unknown;
  readonly tags: readonly string[];
}

function orderTag(order: OrderRecord): string {
  return `order:${order.id}`;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON text already serialized by the route's schema. Takes the reply untyped: a route's typed
 * reply accepts only the unserialized view.
 */
function sendSerialized(reply: FastifyReply, body: string): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

export const orderRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: OrderRoutesOptions }> = async (
  app,
  { store, responseCacheBytes, cacheCounts },
) => {
  const method = routeMethods(app);
  const responses = new OrderResponses(store.changes, responseCacheBytes);
  app.addHook('onClose', async () => responses.stop());

  /**
   * Answers from the cache when it can, synchronously: a hit costs no promise. Keys hold the request's
   * own spelling, so a hit needs no parsing; only answers that passed validation are ever kept.
   * A hit is sent here and the handler returns nothing, Fastify's way for a handler that sent its reply.
   */
  function answerCacheable(reply: FastifyReply, key: string, read: () => Promise<ReadAnswer>): void | Promise<void> {
    const cached = responses.get(key);
    if (cached !== undefined) {
      if (cacheCounts !== undefined) cacheCounts.hits += 1;
      sendSerialized(reply, cached);
      return;
    }
    if (cacheCounts !== undefined) cacheCounts.misses += 1;
    return readAndKeep(reply, key, read);
  }

  /** Reads, and keeps the answer serialized by the route's own schema, exactly as it is sent. */
  async function readAndKeep(reply: FastifyReply, key: string, read: () => Promise<ReadAnswer>): Promise<void> {
    const readStartedAt = responses.startRead();
    const { view, tags } = await read();
    // The route's serializer is fast-json-stringify's, which always produces a string.
    const body = reply.serialize(view) as string;
    responses.remember(key, body, readStartedAt, tags);
    // Awaiting the reply resolves once it is sent: an async handler's way to say it sent its own.
    await sendSerialized(reply, body);
  }

  async function loadOrder(rawId: string): Promise<{ order: OrderRecord; market: Market }> {
    const id = normalizeOrderId(rawId);
    if (id === undefined) throw new LnswapError('InvalidOrderId');
    const order = await store.getOrder(id);
    if (order === undefined) throw new LnswapError('OrderNotFound');
    return { order, market: marketOf(order) };
  }

  /** The canonical ticker when `requested` is the on-chain ticker of an offered market. */
  async function offeredOnchainTicker(requested: string): Promise<string> {
    const { markets } = await store.getConfiguration();
    const ticker = requested.toUpperCase();
    const offered = markets.some((name) => findMarket(name)?.onchain.ticker === ticker);
    if (!offered) throw new LnswapError('InvalidOnchainTicker');
    return ticker;
  }

  app.route({
    method,
    url: '/api/orders',
    schema: findOrdersSchema,
    schemaErrorFormatter: refuseWithTokens(findOrdersQueryTokens),
    handler: (request, reply) => {
      const { onchainTicker } = request.query;
      const invoiceHash = request.query.invoiceHash.toLowerCase();
      const key = onchainTicker === undefined ? `orders ${invoiceHash}` : `orders ${invoiceHash} ${onchainTicker}`;
      return answerCacheable(reply, key, async () => {
        const ticker = onchainTicker === undefined ? undefined : await offeredOnchainTicker(onchainTicker);
        const orders = await store.findOrdersByInvoiceHash(invoiceHash, ticker);
        const tags = [`invoice:${invoiceHash}`, ...orders.map(orderTag)];
        // Whether the ticker is one of an offered market's is part of the answer.
        if (ticker !== undefined) tags.push('configuration');
        return { view: orders.map((order) => presentOrderSummary(order, marketOf(order))), tags };
      });
    },
  });

  app.route({
    method,
    url: '/api/orders/:id',
    schema: getOrderSchema,
    handler: (request, reply) =>
      answerCacheable(reply, `order ${request.params.id}`, async () => {
        const { order, market } = await loadOrder(request.params.id);
        return { view: presentOrder(order, market), tags: [orderTag(order)] };
      }),
  });

  app.route({
    method,
    url: '/api/orders/:id/state',
    schema: orderStateSchema,
    handler: async (request, reply) => {
      const { order } = await loadOrder(request.params.id);
      // A bare string would go out as text; the spec wants the JSON literal, quotes included.
      await sendSerialized(reply, reply.serialize(order.state) as string);
    },
  });

  app.route({
    method,
    url: '/api/orders/:id/fundDetails',
    schema: fundingDetailsSchema,
    handler: async (request) => {
      const { order, market } = await loadOrder(request.params.id);
      const { chains } = await store.getConfiguration();
      return presentFundingDetails(deriveFundingDetails(order, market, chains), market);
    },
  });

  app.route({
    method,
    url: '/api/orders/:id/transactions',
    schema: transactionsSchema,
    handler: (request, reply) =>
      answerCacheable(reply, `transactions ${request.params.id}`, async () => {
        const { order } = await loadOrder(request.params.id);
        return { view: presentTransactions(order), tags: [orderTag(order)] };
      }),
  });

  app.route({
    method,
    url: '/api/orders/:id/refund',
    schema: refundSchema,
    handler: async (request) => {
      const { order, market } = await loadOrder(request.params.id);
      const { chains } = await store.getConfiguration();
      return presentRefund(deriveRefundDetails(order, market, chains), market);
    },
  });
};

import type { FastifyPluginAsync } from 'fastify';
import { LnswapError } from '../domain/errors.js';
import { deriveFundingDetails } from '../domain/funding.js';
import { findMarket, type Market } from '../domain/markets.js';
import type { OrderRecord } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { deriveRefundDetails } from '../domain/refund.js';
import type { Store } from '../store/store.js';
import { routeMethods } from './methods.js';
import {
  presentFundingDetails,
  presentOrder,
  presentOrderSummary,
  presentRefund,
  presentTransactions,
} from './presenters.js';
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
}

interface OrderParams {
  id: string;
}

interface FindOrdersQuery {
  invoiceHash: string;
  onchainTicker?: string;
}

function marketOf(order: OrderRecord): Market {
  const market = findMarket(order.market);
  if (market === undefined) throw new Error(`order ${order.id} has unknown market ${order.market}`);
  return market;
}

export const orderRoutes: FastifyPluginAsync<OrderRoutesOptions> = async (app, { store }) => {
  const method = routeMethods(app);

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

  app.route<{ Querystring: FindOrdersQuery }>({
    method,
    url: '/api/orders',
    schema: findOrdersSchema,
    schemaErrorFormatter: refuseWithTokens(findOrdersQueryTokens),
    handler: async (request) => {
      const { invoiceHash, onchainTicker } = request.query;
      const ticker = onchainTicker === undefined ? undefined : await offeredOnchainTicker(onchainTicker);
      const orders = await store.findOrdersByInvoiceHash(invoiceHash.toLowerCase(), ticker);
      return orders.map((order) => presentOrderSummary(order, marketOf(order)));
    },
  });

  app.route<{ Params: OrderParams }>({
    method,
    url: '/api/orders/:id',
    schema: getOrderSchema,
    handler: async (request) => {
      const { order, market } = await loadOrder(request.params.id);
      return presentOrder(order, market);
    },
  });

  app.route<{ Params: OrderParams }>({
    method,
    url: '/api/orders/:id/state',
    schema: orderStateSchema,
    handler: async (request, reply) => {
      const { order } = await loadOrder(request.params.id);
      // A bare string would go out as text; the spec wants the JSON literal, quotes included.
      return reply.type('application/json; charset=utf-8').send(reply.serialize(order.state));
    },
  });

  app.route<{ Params: OrderParams }>({
    method,
    url: '/api/orders/:id/fundDetails',
    schema: fundingDetailsSchema,
    handler: async (request) => {
      const { order, market } = await loadOrder(request.params.id);
      const { chains } = await store.getConfiguration();
      return presentFundingDetails(deriveFundingDetails(order, market, chains), market);
    },
  });

  app.route<{ Params: OrderParams }>({
    method,
    url: '/api/orders/:id/transactions',
    schema: transactionsSchema,
    handler: async (request) => {
      const { order } = await loadOrder(request.params.id);
      return presentTransactions(order);
    },
  });

  app.route<{ Params: OrderParams }>({
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

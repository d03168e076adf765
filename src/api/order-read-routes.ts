/**
 * The order routes, defined once: each route's path, schema and the `OrderReads` answer it sends. The Fastify
 * routes (`orders.ts`) are registered from this table and the read lane (`read-lane.ts`) matches requests
 * against it, so a route the API serves is served the same way by both.
 */
import type { ErrorToken } from '../domain/errors.js';
import type { OrderReads } from './order-reads.js';
import {
  findOrdersQueryTokens,
  findOrdersSchema,
  fundingDetailsSchema,
  getOrderSchema,
  orderStateSchema,
  refundQueryTokens,
  refundSchema,
  transactionsSchema,
} from './schemas.js';

export type OrderAnswer = string | Promise<string>;

/** The query fields a read of one order takes (the refund's `funder`); a plain request has none. */
export interface OneOrderQuery {
  readonly funder?: string;
}

/** A read of one order: `/api/orders/:id` followed by `tail`. */
export interface OneOrderRoute {
  readonly url: string;
  readonly tail: string;
  readonly schema:
    | typeof getOrderSchema
    | typeof orderStateSchema
    | typeof fundingDetailsSchema
    | typeof transactionsSchema
    | typeof refundSchema;
  /** The token refusing each query field the schema checks. */
  readonly queryTokens?: ReadonlyMap<string, ErrorToken>;
  readonly read: (reads: OrderReads, rawId: string, query: OneOrderQuery) => OrderAnswer;
}

function oneOrderRoute(
  tail: string,
  schema: OneOrderRoute['schema'],
  read: OneOrderRoute['read'],
  queryTokens?: ReadonlyMap<string, ErrorToken>,
): OneOrderRoute {
  return { url: `/api/orders/:id${tail}`, tail, schema, read, ...(queryTokens === undefined ? {} : { queryTokens }) };
}

export const ONE_ORDER_ROUTES: readonly OneOrderRoute[] = [
  oneOrderRoute('', getOrderSchema, (reads, id) => reads.order(id)),
  oneOrderRoute('/state', orderStateSchema, (reads, id) => reads.state(id)),
  oneOrderRoute('/fundDetails', fundingDetailsSchema, (reads, id) => reads.fundDetails(id)),
  oneOrderRoute('/transactions', transactionsSchema, (reads, id) => reads.transactions(id)),
  oneOrderRoute('/refund', refundSchema, (reads, id, { funder }) => reads.refund(id, funder), refundQueryTokens),
];

/** The orders of one invoice: `/api/orders?invoiceHash=`, with an optional `onchainTicker`. */
export const FIND_ORDERS_ROUTE = {
  url: '/api/orders',
  schema: findOrdersSchema,
  queryTokens: findOrdersQueryTokens,
  read: (reads: OrderReads, invoiceHash: string, onchainTicker: string | undefined): OrderAnswer =>
    reads.ordersByInvoiceHash(invoiceHash, onchainTicker),
} as const;

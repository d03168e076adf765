/**
 * The answers of the order routes as JSON text: read from the store, presented, serialized with the
 * route's own response schema, and kept in the response cache where they can be. Both ways into the
 * API answer through here: the Fastify routes (`orders.ts`) and the read lane (`read-lane.ts`), so
 * the two cannot send different bodies. Refusals are thrown as `LnswapError`s, mapped to responses
 * in `errors.ts` only.
 */
import fastJson from 'fast-json-stringify';
import { LnswapError } from '../domain/errors.js';
import { deriveFundingDetails } from '../domain/funding.js';
import { catalogOf } from '../domain/market-catalog.js';
import { findMarket, type Market } from '../domain/markets.js';
import type { OrderRecord } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { deriveOrderRefund, type FunderRefundStore } from '../engine/lifecycle/order-refund.js';
import type { ConfigurationReadStore, OrderReadStore, StoreChanges } from '../store/store.js';
import {
  presentFundingDetails,
  presentOrder,
  presentOrderSummary,
  presentRefund,
  presentTransactions,
} from '../wire/presenters.js';
import type { ResponseCacheCounts } from './http-metrics.js';
import { OrderResponses } from './order-responses.js';
import {
  findOrdersSchema,
  fundingDetailsSchema,
  getOrderSchema,
  orderStateSchema,
  refundSchema,
  transactionsSchema,
} from './schemas.js';

type Serializer = (view: unknown) => string;

/** fast-json-stringify, as Fastify itself compiles a route's response schema (no shared schemas). */
function serializerOf(schema: object): Serializer {
  return fastJson(schema) as Serializer;
}

const serialize = {
  orders: serializerOf(findOrdersSchema.response[200]),
  order: serializerOf(getOrderSchema.response[200]),
  state: serializerOf(orderStateSchema.response[200]),
  fundDetails: serializerOf(fundingDetailsSchema.response[200]),
  transactions: serializerOf(transactionsSchema.response[200]),
  refund: serializerOf(refundSchema.response[200]),
};

/** What a read found, serialized, and what it depends on (`order:ID`, `invoice:HASH`, `configuration`). */
interface ReadAnswer {
  readonly body: string;
  readonly tags: readonly string[];
}

function orderTag(order: OrderRecord): string {
  return `order:${order.id}`;
}

export interface OrderReadsOptions {
  readonly store: ConfigurationReadStore & OrderReadStore & StoreChanges & FunderRefundStore;
  /** Budget for serialized answers about orders; 0 turns the cache off. */
  readonly responseCacheBytes: number;
  /** Counts the cache's hits and misses, for metrics. */
  readonly cacheCounts?: ResponseCacheCounts;
}

export class OrderReads {
  private readonly store: ConfigurationReadStore & OrderReadStore & StoreChanges & FunderRefundStore;
  private readonly responses: OrderResponses;
  private readonly cacheCounts: ResponseCacheCounts | undefined;

  constructor({ store, responseCacheBytes, cacheCounts }: OrderReadsOptions) {
    this.store = store;
    this.cacheCounts = cacheCounts;
    this.responses = new OrderResponses(store.changes, responseCacheBytes);
  }

  /**
   * `GET /api/orders?invoiceHash=`: `invoiceHash` already checked to be 64 hex digits, in any case.
   * The cache key holds the request's own spelling of the ticker; only answers that passed every check are kept.
   */
  ordersByInvoiceHash(invoiceHash: string, onchainTicker: string | undefined): string | Promise<string> {
    const hash = invoiceHash.toLowerCase();
    const key = onchainTicker === undefined ? `orders ${hash}` : `orders ${hash} ${onchainTicker}`;
    return this.answerCacheable(key, async () => {
      const ticker = onchainTicker === undefined ? undefined : await this.offeredOnchainTicker(onchainTicker);
      const orders = await this.store.findOrdersByInvoiceHash(hash, ticker);
      const tags = [`invoice:${hash}`, ...orders.map(orderTag)];
      // Whether the ticker is one of an offered market's is part of the answer.
      if (ticker !== undefined) tags.push('configuration');
      const views = [];
      for (const order of orders) {
        views.push(presentOrderSummary(order, findMarket(order.market) ?? (await this.tokenMarketOf(order))));
      }
      return { body: serialize.orders(views), tags };
    });
  }

  /** `GET /api/orders/:id`, the id as the request spelled it. */
  order(rawId: string): string | Promise<string> {
    return this.answerCacheable(`order ${rawId}`, async () => {
      const { order, market } = await this.loadOrder(rawId);
      return { body: serialize.order(presentOrder(order, market)), tags: [orderTag(order)] };
    });
  }

  /** `GET /api/orders/:id/transactions`. */
  transactions(rawId: string): string | Promise<string> {
    return this.answerCacheable(`transactions ${rawId}`, async () => {
      const { order } = await this.loadOrder(rawId);
      return { body: serialize.transactions(presentTransactions(order)), tags: [orderTag(order)] };
    });
  }

  /** `GET /api/orders/:id/state`: the JSON string literal, quotes included. */
  async state(rawId: string): Promise<string> {
    const { order } = await this.loadOrder(rawId);
    return serialize.state(order.state);
  }

  /** `GET /api/orders/:id/fundDetails`: never cached, it depends on the chain view. */
  async fundDetails(rawId: string): Promise<string> {
    const { order, market } = await this.loadOrder(rawId);
    const { chains } = await this.store.getConfiguration();
    return serialize.fundDetails(presentFundingDetails(deriveFundingDetails(order, market, chains), market));
  }

  /**
   * `GET /api/orders/:id/refund`, with `funder` (already checked to be an address) about that funder's slot
   * alone: never cached, it depends on the chain view.
   */
  async refund(rawId: string, funder?: string): Promise<string> {
    const { order, market } = await this.loadOrder(rawId);
    const configuration = await this.store.getConfiguration();
    const refund = await deriveOrderRefund(this.store, configuration, order, market, funder);
    return serialize.refund(presentRefund(refund, market));
  }

  stop(): void {
    this.responses.stop();
  }

  /** From the cache when it can, synchronously: a hit costs no promise. */
  private answerCacheable(key: string, read: () => Promise<ReadAnswer>): string | Promise<string> {
    const cached = this.responses.get(key);
    if (cached !== undefined) {
      if (this.cacheCounts !== undefined) this.cacheCounts.hits += 1;
      return cached;
    }
    if (this.cacheCounts !== undefined) this.cacheCounts.misses += 1;
    return this.readAndKeep(key, read);
  }

  private async readAndKeep(key: string, read: () => Promise<ReadAnswer>): Promise<string> {
    const readStartedAt = this.responses.startRead();
    const { body, tags } = await read();
    this.responses.remember(key, body, readStartedAt, tags);
    return body;
  }

  private async loadOrder(rawId: string): Promise<{ order: OrderRecord; market: Market }> {
    const id = normalizeOrderId(rawId);
    if (id === undefined) throw new LnswapError('InvalidOrderId');
    const order = await this.store.getOrder(id);
    if (order === undefined) throw new LnswapError('OrderNotFound');
    // A known market comes straight from its map, without a wait; only a token's waits for the configuration.
    return { order, market: findMarket(order.market) ?? (await this.tokenMarketOf(order)) };
  }

  /** The market of an order on a configured token (the configuration is held in memory between changes). */
  private async tokenMarketOf(order: OrderRecord): Promise<Market> {
    return catalogOf(await this.store.getConfiguration()).marketOf(order);
  }

  /** The canonical ticker when `requested` is the on-chain ticker of an offered market. */
  private async offeredOnchainTicker(requested: string): Promise<string> {
    const configuration = await this.store.getConfiguration();
    const catalog = catalogOf(configuration);
    const ticker = requested.toUpperCase();
    const offered = configuration.markets.some((name) => catalog.findMarket(name)?.onchain.ticker === ticker);
    if (!offered) throw new LnswapError('InvalidOnchainTicker');
    return ticker;
  }
}

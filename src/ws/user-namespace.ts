import type { Logger } from 'pino';
import type { Namespace, Socket } from 'socket.io';
import { presentFundingDetails, presentRefund, presentRequirements } from '../wire/presenters.js';
import { LnswapError } from '../domain/errors.js';
import { deriveFundingDetails } from '../domain/funding.js';
import { catalogOf } from '../domain/market-catalog.js';
import type { OrderRecord } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { deriveRefundDetails } from '../domain/refund.js';
import { requirementsForAllMarkets } from '../domain/requirements.js';
import { isPlainObject } from '../engine/payload-shapes.js';
import type { QuoteDesk } from '../engine/quote-desk.js';
import type { Store } from '../store/store.js';
import { readBlockHeightTopic } from './block-heights.js';
import { broadcastTransaction, type Broadcasters } from './broadcast-transaction.js';
import type { ClientAddresses } from './client-address.js';
import { TokenBucket } from '../domain/token-bucket.js';
import type { AddressLimits } from './address-limits.js';
import { guarded } from './guarded.js';
import { handleRequests, type RequestHandler } from './requests.js';
import type { OrderSubscriptions } from './order-subscriptions.js';
import { blockHeightRoom } from './rooms.js';
import type { SocketOptions } from './socket-options.js';

export interface UserNamespaceDependencies {
  readonly store: Store;
  readonly desk: QuoteDesk;
  readonly subscriptions: OrderSubscriptions;
  readonly addressLimits: AddressLimits;
  readonly addresses: ClientAddresses;
  readonly options: SocketOptions;
  readonly now: () => number;
  readonly logger: Logger;
  readonly broadcasters: Broadcasters;
}

/** `/user/v1`: users request quotes, follow their orders and block heights, and read refund details. */
export function serveUserNamespace(namespace: Namespace, dependencies: UserNamespaceDependencies): void {
  const { logger, addressLimits, options } = dependencies;
  namespace.on(
    'connection',
    guarded(
      logger,
      'serving a user connection',
      (socket: Socket) => {
        const handlers = userHandlers(socket, dependencies);
        const address = dependencies.addresses.of(socket);
        const takeAddressToken = () => addressLimits.take('events', address, options.eventsPerAddress);
        const maxPayloadBytesByEvent = { broadcastTransaction: options.maxBroadcastPayloadBytes };
        handleRequests(socket, handlers, { ...options, maxPayloadBytesByEvent, takeAddressToken, now: dependencies.now }, logger);
      },
      (socket) => socket.disconnect(true),
    ),
  );
}

function userHandlers(
  socket: Socket,
  dependencies: UserNamespaceDependencies,
): Record<string, RequestHandler> {
  const { store, desk, subscriptions, addressLimits, options, now } = dependencies;
  socket.on('disconnect', () => subscriptions.forget(socket));
  const quoteRequests = new TokenBucket(options.quoteRequestsPerConnection, now());
  const address = dependencies.addresses.of(socket);

  return {
    requestQuote: async (payload, { requestId }) => {
      if (!quoteRequests.tryTake(now())) throw new LnswapError('RateLimitExceeded');
      if (!(await addressLimits.take('quoteRequests', address, options.quoteRequestsPerAddress))) {
        throw new LnswapError('RateLimitExceeded');
      }
      const order = await desk.requestQuote(payload, requestId);
      const configuration = await store.getConfiguration();
      const market = catalogOf(configuration).marketOf(order);
      return presentFundingDetails(deriveFundingDetails(order, market, configuration.chains), market);
    },

    subscribeToOrderState: async (payload) => {
      readOrderId(payload);
      const sinceSequence = readSinceSequence(payload);
      const order = await findOrder(store, payload);
      await subscriptions.subscribe(socket, order.id, sinceSequence);
      return undefined;
    },

    unsubscribeFromOrderState: async (payload) => {
      subscriptions.unsubscribe(socket, readOrderId(payload));
      return undefined;
    },

    subscribeToBlockHeight: async (payload) => {
      const configuration = await store.getConfiguration();
      const topic = readBlockHeightTopic(payload, configuration.markets, catalogOf(configuration));
      await socket.join(blockHeightRoom(topic.chain, topic.subnet));
      return undefined;
    },

    unsubscribeFromBlockHeight: async (payload) => {
      const configuration = await store.getConfiguration();
      const topic = readBlockHeightTopic(payload, configuration.markets, catalogOf(configuration));
      await socket.leave(blockHeightRoom(topic.chain, topic.subnet));
      return undefined;
    },

    requestRefundDetails: async (payload) => {
      const order = await findOrder(store, payload);
      const configuration = await store.getConfiguration();
      const market = catalogOf(configuration).marketOf(order);
      return presentRefund(deriveRefundDetails(order, market, configuration.chains), market);
    },

    broadcastTransaction: async (payload) => {
      const catalog = catalogOf(await store.getConfiguration());
      return broadcastTransaction(payload, catalog, dependencies.broadcasters, dependencies.logger);
    },

    requestMarketRequirements: async () => {
      const { markets, providers } = await store.getConfiguration();
      return requirementsForAllMarkets(markets, providers).map(presentRequirements);
    },
  };
}

function readOrderId(payload: unknown): string {
  const raw = isPlainObject(payload) ? payload.orderId : undefined;
  const orderId = typeof raw === 'string' ? normalizeOrderId(raw) : undefined;
  if (orderId === undefined) throw new LnswapError('InvalidOrderId');
  return orderId;
}

/** Absent, null or a non-negative safe integer: the last sequence the client has of the order. */
function readSinceSequence(payload: unknown): number | undefined {
  const raw = isPlainObject(payload) ? payload.sinceSequence : undefined;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) throw new LnswapError('InvalidSinceSequence');
  return raw;
}

async function findOrder(store: Store, payload: unknown): Promise<OrderRecord> {
  const order = await store.getOrder(readOrderId(payload));
  if (order === undefined) throw new LnswapError('OrderNotFound');
  return order;
}

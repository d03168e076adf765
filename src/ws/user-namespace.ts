import type { Logger } from 'pino';
import type { Namespace, Socket } from 'socket.io';
import { checkCancelRequest, readCancelRequest } from '../engine/lifecycle/cancel-request.js';
import { forwardCancel } from './cancel-forwarder.js';
import { presentFundingDetails, presentRefund, presentRequirements } from '../wire/presenters.js';
import { LnswapError } from '../domain/errors.js';
import { deriveFundingDetails } from '../domain/funding.js';
import { catalogOf } from '../domain/market-catalog.js';
import type { OrderRecord } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { requirementsForAllMarkets } from '../domain/requirements.js';
import { deriveOrderRefund, type FunderRefundStore } from '../engine/lifecycle/order-refund.js';
import { payloadReader } from '../engine/lifecycle/payload-shapes.js';
import {
  orderIdRequestShape,
  orderStateSubscriptionShape,
  refundDetailsRequestShape,
} from '../wire/socket-payloads.js';
import type { QuoteDesk } from '../engine/lifecycle/quote-desk.js';
import type { ConfigurationReadStore, OrderReadStore } from '../store/store.js';
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
  readonly store: ConfigurationReadStore & OrderReadStore & FunderRefundStore;
  readonly desk: QuoteDesk;
  readonly subscriptions: OrderSubscriptions;
  readonly addressLimits: AddressLimits;
  readonly addresses: ClientAddresses;
  readonly options: SocketOptions;
  readonly now: () => number;
  readonly logger: Logger;
  readonly broadcasters: Broadcasters;
  /** `/provider/v1`, where a user's cancel is forwarded to the order's winning provider. */
  readonly providers: Namespace;
  /** The chain id of the Ethereum node the service follows: the domain of cancel signatures. */
  readonly ethereumChainId?: number;
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
        handleRequests(
          socket,
          handlers,
          { ...options, maxPayloadBytesByEvent, takeAddressToken, now: dependencies.now },
          logger,
        );
      },
      (socket) => socket.disconnect(true),
    ),
  );
}

function userHandlers(socket: Socket, dependencies: UserNamespaceDependencies): Record<string, RequestHandler> {
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
      const { orderId, sinceSequence } = readOrderStateSubscription(payload);
      const order = await findOrder(store, normalizedOrderId(orderId));
      await subscriptions.subscribe(socket, order.id, sinceSequence ?? undefined);
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
      const request = readRefundDetailsRequest(payload);
      const order = await findOrder(store, normalizedOrderId(request.orderId));
      const configuration = await store.getConfiguration();
      const market = catalogOf(configuration).marketOf(order);
      return presentRefund(await deriveOrderRefund(store, configuration, order, market, request.funder), market);
    },

    requestCancel: async (payload) => {
      const cancel = await checkCancelRequest(readCancelRequest(payload), {
        store,
        ethereumChainId: dependencies.ethereumChainId,
      });
      await forwardCancel(dependencies.providers, cancel, options.clusterRequestTimeoutMs);
      dependencies.logger.info(cancel, "the winning provider gave up the order at its funder's request");
      return undefined;
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

const readOrderIdRequest = payloadReader<{ orderId: string }>(orderIdRequestShape);
const readRefundDetailsRequest = payloadReader<{ orderId: string; funder?: string }>(refundDetailsRequestShape);
const readOrderStateSubscription = payloadReader<{ orderId: string; sinceSequence?: number | null }>(
  orderStateSubscriptionShape,
);

/** The order id of a payload of the shape, in the one spelling the store keeps. */
function normalizedOrderId(orderId: string): string {
  const normalized = normalizeOrderId(orderId);
  if (normalized === undefined) throw new LnswapError('InvalidOrderId');
  return normalized;
}

function readOrderId(payload: unknown): string {
  return normalizedOrderId(readOrderIdRequest(payload).orderId);
}

async function findOrder(store: OrderReadStore, orderId: string): Promise<OrderRecord> {
  const order = await store.getOrder(orderId);
  if (order === undefined) throw new LnswapError('OrderNotFound');
  return order;
}

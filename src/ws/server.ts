import type { Server as HttpServer } from 'node:http';
import type { Logger } from 'pino';
import { Server } from 'socket.io';
import type { EngineOutlets } from '../engine/build-engine.js';
import { resolveEngineOptions, type EngineOptions } from '../engine/operations/options.js';
import type { OrderTransitions } from '../engine/lifecycle/order-transitions.js';
import { startPeriodicTask, upkeepFailed, type PeriodicTask } from '../engine/operations/periodic-task.js';
import type { QuoteDesk } from '../engine/lifecycle/quote-desk.js';
import { storedStateChangedEvents, type StateChangedEvent } from '../engine/lifecycle/state-events.js';
import type {
  ConfigurationReadStore,
  CooperativeRefundStore,
  OrderReadStore,
  ProviderStore,
  RateLimitStore,
} from '../store/store.js';
import { AddressLimits, ConnectionCap } from './address-limits.js';
import { announceBlockHeight } from './block-heights.js';
import { ClientAddresses } from './client-address.js';
import { boundedParser } from './bounded-parser.js';
import { ByteBudgets } from './byte-budgets.js';
import { gatePackets } from './packet-gate.js';
import { busAdapter } from './bus-adapter.js';
import type { ClusterBus } from './cluster-bus.js';
import type { Broadcasters } from './broadcast-transaction.js';
import { MakerQuoteRouter } from './maker-quote-router.js';
import { ProviderPresence } from './provider-presence.js';
import { serveProviderNamespace } from './provider-namespace.js';
import { OrderSubscriptions } from './order-subscriptions.js';
import { marketQuotesRoom } from './rooms.js';
import { resolveSocketOptions, type SocketOptions } from './socket-options.js';
import { serveUserNamespace } from './user-namespace.js';
import type { FunderRefundStore } from '../engine/lifecycle/order-refund.js';

export const USER_NAMESPACE = '/user/v1';
export const PROVIDER_NAMESPACE = '/provider/v1';
/** A move made on another instance, for this instance's subscribers. */
const STATE_CHANGED_ELSEWHERE = 'lnswap:stateChanged';

/** The store's roles the namespaces use: reads, providers and their credentials, rate limits. */
export type SocketStore = ConfigurationReadStore &
  OrderReadStore &
  ProviderStore &
  RateLimitStore &
  FunderRefundStore &
  CooperativeRefundStore;

export interface SocketServerDependencies {
  readonly store: SocketStore;
  readonly logger: Logger;
  /** How instances sharing the store's database reach each other; absent for a store no other instance shares. */
  readonly bus?: ClusterBus;
  /** The quote deadline (a request's timeout must outlast it) and the provider presence interval. */
  readonly engine?: Partial<EngineOptions>;
  readonly sockets?: Partial<SocketOptions>;
  readonly now?: () => number;
  /** Chain backends that `broadcastTransaction` sends through; none by default. */
  readonly broadcasters?: Broadcasters;
  /** The chain id of the Ethereum node followed: providers' cooperative refunds are signed for it. */
  readonly ethereumChainId?: number;
}

/** The engine's parts the namespaces hand requests to. */
export interface SocketEngineParts {
  /** Moves orders on providers' paymentResults. */
  readonly transitions: OrderTransitions;
  /** Takes users' quote requests and providers' maker quotes. */
  readonly desk: QuoteDesk;
}

export interface SocketServer {
  readonly io: Server;
  /** How the engine's parts reach this server's clients: given to the engine before `serve`. */
  readonly outlets: EngineOutlets;
  /** Starts answering both namespaces' requests with the engine's parts; called once. */
  serve(parts: SocketEngineParts): void;
  /** Stops the periodic work and disconnects every client; leaves the HTTP server and the engine to their owner. */
  close(): Promise<void>;
}

/**
 * Attaches `/user/v1` and `/provider/v1` to an existing HTTP server, for socket.io 4 clients and,
 * through the EIO3 compatibility switch, socket.io 2 clients; they answer requests once `serve` has
 * handed them the engine's parts, which the composition root builds.
 */
export async function attachSocketServer(
  httpServer: HttpServer,
  dependencies: SocketServerDependencies,
): Promise<SocketServer> {
  const { store, logger } = dependencies;
  const engineOptions = resolveEngineOptions(dependencies.engine);
  const socketOptions = resolveSocketOptions(dependencies.sockets);
  const now = dependencies.now ?? Date.now;

  if (socketOptions.requestTimeoutMs <= engineOptions.quoteDeadlineMs) {
    throw new RangeError('socket option requestTimeoutMs must exceed the quote deadline');
  }
  const { bus } = dependencies;
  const io = new Server(httpServer, {
    allowEIO3: true,
    serveClient: false,
    maxHttpBufferSize: socketOptions.maxMessageBytes,
    parser: boundedParser(socketOptions.maxMessageDepth),
    ...(bus === undefined
      ? {}
      : {
          adapter: busAdapter(bus, {
            heartbeatIntervalMs: socketOptions.clusterHeartbeatIntervalMs,
            heartbeatTimeoutMs: socketOptions.clusterHeartbeatTimeoutMs,
          }),
        }),
  });
  const addresses = new ClientAddresses(socketOptions.trustProxy, logger, now);
  gatePackets(io, {
    budgets: new ByteBudgets(
      socketOptions.bytesPerConnection,
      socketOptions.bytesPerAddress,
      socketOptions.maxPayloadBytes,
      now,
    ),
    addressOf: (connection) => addresses.ofConnection(connection),
    namespaces: [USER_NAMESPACE, PROVIDER_NAMESPACE],
    payloadBound: (namespace, event) =>
      namespace === USER_NAMESPACE && event === 'broadcastTransaction'
        ? socketOptions.maxBroadcastPayloadBytes
        : socketOptions.maxPayloadBytes,
    now,
    logger,
  });
  const users = io.of(USER_NAMESPACE);
  const providers = io.of(PROVIDER_NAMESPACE);

  const clustered = bus !== undefined;
  const subscriptions = new OrderSubscriptions(
    (orderId, afterSequence) => storedStateChangedEvents(store, orderId, afterSequence),
    logger,
  );
  if (clustered) {
    users.on(STATE_CHANGED_ELSEWHERE, (event: StateChangedEvent) => subscriptions.deliver(event));
  }
  const outlets: EngineOutlets = {
    solicitQuotes: (request) => providers.to(marketQuotesRoom(request.market)).emit('requestQuote', request),
    // Each instance sends to its own subscribers, so each can keep every subscriber's events in sequence.
    publish: (event) => {
      subscriptions.deliver(event);
      if (clustered) users.serverSideEmit(STATE_CHANGED_ELSEWHERE, event);
    },
    announceBlockHeight: (change) => announceBlockHeight(users, change),
  };
  const presence = new ProviderPresence(store, providers, socketOptions.clusterRequestTimeoutMs, logger);

  const broadcasters = dependencies.broadcasters ?? {};
  const addressLimits = new AddressLimits(store, now, logger);
  const connectionCap = new ConnectionCap(socketOptions.connectionsPerAddress);
  for (const namespace of [users, providers]) {
    namespace.use((socket, next) => {
      const admitted = connectionCap.admit(socket, addresses.of(socket));
      next(admitted ? undefined : new Error('TooManyConnections'));
    });
  }
  const options = socketOptions;
  let router: MakerQuoteRouter | undefined;
  let presenceCheck: PeriodicTask | undefined;

  return {
    io,
    outlets,
    serve({ transitions, desk }) {
      if (router !== undefined) throw new Error('the socket server serves once');
      router = new MakerQuoteRouter(desk, providers, clustered, socketOptions.forwardedQuoteTimeoutMs, logger);
      serveUserNamespace(users, {
        store,
        desk,
        subscriptions,
        addressLimits,
        addresses,
        options,
        now,
        logger,
        broadcasters,
        providers,
        ...(dependencies.ethereumChainId === undefined ? {} : { ethereumChainId: dependencies.ethereumChainId }),
      });
      serveProviderNamespace(providers, {
        store,
        router,
        presence,
        transitions,
        addressLimits,
        addresses,
        options,
        now,
        logger,
        ...(dependencies.ethereumChainId === undefined ? {} : { ethereumChainId: dependencies.ethereumChainId }),
      });
      presenceCheck = startPeriodicTask(() => presence.reconcile(), {
        intervalMs: engineOptions.presenceIntervalMs,
        // A new instance learns of its peers from their heartbeats; asking before that would see
        // only its own connections and wrongly drop every provider connected elsewhere.
        firstRunAfterMs: clustered ? socketOptions.clusterHeartbeatTimeoutMs : 0,
        onError: upkeepFailed(logger, 'provider presence check'),
      });
    },
    async close() {
      router?.close();
      await presenceCheck?.stop();
      const namespaces = [users, providers, io.of('/')];
      await presence.shutdown(() => {
        for (const namespace of namespaces) namespace.local.disconnectSockets(true);
      });
      for (const namespace of namespaces) await namespace.adapter.close();
      io.engine.close();
    },
  };
}

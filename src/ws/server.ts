import type { Server as HttpServer } from 'node:http';
import type { Logger } from 'pino';
import { Server, type Namespace } from 'socket.io';
import { isLnswapError } from '../domain/errors.js';
import { BlockHeightTracker } from '../engine/block-height-tracker.js';
import { sweepElapsedFundWindows } from '../engine/fund-window-sweeper.js';
import { resolveEngineOptions, type EngineOptions } from '../engine/options.js';
import { OrderTransitions } from '../engine/order-transitions.js';
import { startPeriodicTask, type PeriodicTask } from '../engine/periodic-task.js';
import { QuoteDesk } from '../engine/quote-desk.js';
import type { AuctionEvents, OrderMoveEvents } from '../engine/metrics.js';
import { storedStateChangedEvents, type StateChangedEvent } from '../engine/state-events.js';
import type { Store } from '../store/store.js';
import { AddressLimits, ConnectionCap } from './address-limits.js';
import { announceBlockHeight } from './block-heights.js';
import { ClientAddresses } from './client-address.js';
import { boundedParser } from './bounded-parser.js';
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

export const USER_NAMESPACE = '/user/v1';
export const PROVIDER_NAMESPACE = '/provider/v1';
/** A move made on another instance, for this instance's subscribers. */
const STATE_CHANGED_ELSEWHERE = 'lnswap:stateChanged';

export interface SocketServerDependencies {
  readonly store: Store;
  readonly logger: Logger;
  /** How instances sharing the store's database reach each other; absent for a store no other instance shares. */
  readonly bus?: ClusterBus;
  readonly engine?: Partial<EngineOptions>;
  readonly sockets?: Partial<SocketOptions>;
  readonly now?: () => number;
  /** Chain backends that `broadcastTransaction` sends through; none by default. */
  readonly broadcasters?: Broadcasters;
  /** Told of auctions and of every order move this instance makes, for metrics. */
  readonly events?: AuctionEvents & OrderMoveEvents;
}

export interface SocketServer {
  readonly io: Server;
  /** Moves orders and tells their subscribers; the entry point for anything that watches the chains. */
  readonly transitions: OrderTransitions;
  /** Stops the periodic work and disconnects every client; leaves the HTTP server to its owner. */
  close(): Promise<void>;
}

/**
 * Serves `/user/v1` and `/provider/v1` on an existing HTTP server, for socket.io 4 clients and,
 * through the EIO3 compatibility switch, socket.io 2 clients.
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
  const users = io.of(USER_NAMESPACE);
  const providers = io.of(PROVIDER_NAMESPACE);

  const { events } = dependencies;
  const clustered = bus !== undefined;
  const subscriptions = new OrderSubscriptions(
    (orderId, afterSequence) => storedStateChangedEvents(store, orderId, afterSequence),
    logger,
  );
  // Each instance sends to its own subscribers, so each can keep every subscriber's events in sequence.
  const transitions = new OrderTransitions(store, (event) => {
    events?.orderMoved(event.state);
    subscriptions.deliver(event);
    if (clustered) users.serverSideEmit(STATE_CHANGED_ELSEWHERE, event);
  });
  if (clustered) {
    users.on(STATE_CHANGED_ELSEWHERE, (event: StateChangedEvent) => subscriptions.deliver(event));
  }
  const desk = new QuoteDesk({
    store,
    options: engineOptions,
    now,
    solicitQuotes: (request) => providers.to(marketQuotesRoom(request.market)).emit('requestQuote', request),
    ...(events === undefined ? {} : { events }),
  });
  const router = new MakerQuoteRouter(desk, providers, clustered, socketOptions.forwardedQuoteTimeoutMs, logger);
  const presence = new ProviderPresence(store, providers, socketOptions.clusterRequestTimeoutMs, logger);

  const broadcasters = dependencies.broadcasters ?? {};
  const addressLimits = new AddressLimits(store, now, logger);
  const connectionCap = new ConnectionCap(socketOptions.connectionsPerAddress);
  const addresses = new ClientAddresses(socketOptions.trustProxy, logger, now);
  for (const namespace of [users, providers]) {
    namespace.use((socket, next) => {
      const admitted = connectionCap.admit(socket, addresses.of(socket));
      next(admitted ? undefined : new Error('TooManyConnections'));
    });
  }
  const options = socketOptions;
  serveUserNamespace(users, { store, desk, subscriptions, addressLimits, addresses, options, now, logger, broadcasters });
  serveProviderNamespace(providers, { store, router, presence, transitions, addressLimits, addresses, options, now, logger });

  const tasks = startUpkeep({
    store,
    transitions,
    presence,
    users,
    engineOptions,
    socketOptions,
    clustered,
    now,
    logger,
  });

  return {
    io,
    transitions,
    async close() {
      desk.close();
      router.close();
      await Promise.all(tasks.map((task) => task.stop()));
      const namespaces = [users, providers, io.of('/')];
      await presence.shutdown(() => {
        for (const namespace of namespaces) namespace.local.disconnectSockets(true);
      });
      for (const namespace of namespaces) await namespace.adapter.close();
      io.engine.close();
    },
  };
}

interface UpkeepDependencies {
  readonly store: Store;
  readonly transitions: OrderTransitions;
  readonly presence: ProviderPresence;
  readonly users: Namespace;
  readonly engineOptions: EngineOptions;
  readonly socketOptions: SocketOptions;
  readonly clustered: boolean;
  readonly now: () => number;
  readonly logger: Logger;
}

/** The periodic work every instance does; each step is safe to run on several instances at once. */
function startUpkeep(dependencies: UpkeepDependencies): PeriodicTask[] {
  const { store, transitions, presence, users, engineOptions, socketOptions, now, logger } = dependencies;
  const heights = new BlockHeightTracker();
  // An unreachable store is logged once per outage, where it is noticed, not by every task on every run.
  const failed = (what: string) => (error: unknown) => {
    if (!(isLnswapError(error) && error.token === 'ServiceUnavailable')) logger.error({ err: error }, `${what} failed`);
  };
  return [
    startPeriodicTask((signal) => sweepElapsedFundWindows(store, transitions, now(), signal), {
      intervalMs: engineOptions.sweepIntervalMs,
      onError: failed('fund window sweep'),
    }),
    startPeriodicTask(
      async () => {
        const { chains } = await store.getConfiguration();
        for (const change of heights.update(chains)) announceBlockHeight(users, change);
      },
      { intervalMs: engineOptions.chainViewPollIntervalMs, onError: failed('chain view poll') },
    ),
    startPeriodicTask(() => presence.reconcile(), {
      intervalMs: engineOptions.presenceIntervalMs,
      // A new instance learns of its peers from their heartbeats; asking before that would see
      // only its own connections and wrongly drop every provider connected elsewhere.
      firstRunAfterMs: dependencies.clustered ? socketOptions.clusterHeartbeatTimeoutMs : 0,
      onError: failed('provider presence check'),
    }),
  ];
}

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { buildApiServer } from './api/server.js';
import {
  connectEthereum,
  DEFAULT_ETHEREUM_POLL_INTERVAL_MS,
  startEthereumWatch,
  type EthereumBackendFactory,
  type EthereumWatchOptions,
} from './engine/chain-following/ethereum-watch.js';
import {
  connectBitcoin,
  DEFAULT_BITCOIN_POLL_INTERVAL_MS,
  startBitcoinWatch,
  type BitcoinWatchOptions,
} from './engine/chain-following/bitcoin-watch.js';
import { ChainHealth, startNodeProbe } from './engine/chain-following/chain-health.js';
import { NODE_TIMEOUT_MS } from './chains/node-http.js';
import type { PeriodicTask } from './engine/operations/periodic-task.js';
import { openBitcoinBackend } from './chains/bitcoin/open-bitcoin-backend.js';
import type { ChainKind } from './domain/markets.js';
import { nodeUrlForLog } from './domain/node-url.js';
import { buildEngine } from './engine/build-engine.js';
import { resolveEngineOptions, type EngineOptions } from './engine/operations/options.js';
import type { OrderTransitions } from './engine/lifecycle/order-transitions.js';
import { StoreOutage } from './store/availability.js';
import { ServiceMetrics } from './engine/operations/metrics.js';
import { DEFAULT_ALLOWED_LAG_BLOCKS, Readiness, type FollowedChain } from './engine/operations/readiness.js';
import { guardStore } from './store/guarded-store.js';
import { openClusterBus, openLeadership } from './store/open.js';
import { whileLeading, type WhileLeading } from './engine/chain-following/while-leading.js';
import { EthereumBackend } from './chains/ethereum/ethereum-backend.js';
import { ethereumChainFitsNetwork } from './domain/chain-networks.js';
import type { Leadership, LeadershipOptions } from './store/leadership.js';
import type { Store } from './store/store.js';
import type { ClusterBus } from './ws/cluster-bus.js';
import { attachSocketServer } from './ws/server.js';
import type { Broadcasters } from './ws/broadcast-transaction.js';
import type { SocketOptions } from './ws/socket-options.js';

export interface ServiceOptions {
  readonly store: Store;
  readonly host: string;
  /** 0 picks a free port; the URL tells which. */
  readonly port: number;
  readonly logger: Logger;
  /** The store's database URL: instances sharing one PostgreSQL database find each other through it. */
  readonly databaseUrl?: string;
  /** Quoting and order upkeep knobs; the defaults suit production. */
  readonly engine?: Partial<EngineOptions>;
  /** WebSocket flood bounds and cluster timing; the defaults suit production. */
  readonly sockets?: Partial<SocketOptions>;
  /** False: no `/metrics` and no counting for it (the counters cost a little on every request); true when absent. */
  readonly metrics?: boolean;
  /** Memory for cached answers about orders; the API's default when absent, 0 for none. */
  readonly responseCacheBytes?: number;
  /**
   * Follow an Ethereum node: orders of the Ethereum markets then move from what the swap contract's events
   * say (docs/chain-watcher.md). Without it, chain views come only from imports.
   */
  readonly ethereum?: EthereumWatchOptions;
  /** Follow a Bitcoin node (Esplora or Bitcoin Core): orders of the Bitcoin markets then move from its blocks (docs/bitcoin.md). */
  readonly bitcoin?: BitcoinWatchOptions;
  /**
   * Chain backends that `broadcastTransaction` sends through, besides the Ethereum node's (which is used when
   * `ethereum` is given); none by default.
   */
  readonly broadcasters?: Broadcasters;
  /** How instances sharing a PostgreSQL database agree on which one watches a chain; the defaults suit production. */
  readonly leadership?: Partial<LeadershipOptions>;
  /** Blocks each followed chain's watcher may trail its node's tip while `/readyz` still answers ready. */
  readonly allowedLagBlocks?: Partial<Record<ChainKind, number>>;
}

export interface RunningService {
  /** Where the service answers, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  /** Moves orders and tells the users following them. */
  readonly transitions: OrderTransitions;
  /** Stops accepting connections and resolves once in-flight requests have been answered. */
  close(): Promise<void>;
}

/** Any id will do: the probe asks whether the database answers, not what it holds. */
const PROBE_ORDER_ID = '00000000-0000-0000-0000-000000000000';
/** Ethereum's slot: a block is proposed at its timestamp and reaches the nodes within it. */
const ETHEREUM_SLOT_MS = 12_000;

/**
 * The composition root: builds every part the service runs (the engine's through `buildEngine`), wired
 * to one store and one logger, and hands each transport the parts it serves. The parts answering
 * clients, and their upkeep, see the store through a guard that turns an unreachable database into
 * ServiceUnavailable; the chain watchers see it bare, since a failed poll is reported, with its own
 * error, through the chain's health and retried at the next poll.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  if (options.store.dialect === 'postgres' && options.databaseUrl === undefined) {
    throw new Error('startService: a PostgreSQL store needs its databaseUrl, by which its instances form a cluster');
  }
  const outage = new StoreOutage(() => options.store.getOrder(PROBE_ORDER_ID), options.logger);
  const store = guardStore(options.store, outage);
  const bus = options.databaseUrl === undefined ? undefined : await openClusterBus(options.databaseUrl, options.logger);
  try {
    return await startParts(options, store, bus, outage);
  } catch (error) {
    outage.stop();
    await bus?.close();
    throw error;
  }
}

async function startParts(
  options: ServiceOptions,
  store: Store,
  bus: ClusterBus | undefined,
  outage: StoreOutage,
): Promise<RunningService> {
  const ethereum =
    options.ethereum === undefined
      ? undefined
      : await connectEthereum(options.store, options.ethereum, ethereumBackendFor(options.ethereum, options.logger));
  const bitcoinOptions = options.bitcoin;
  const bitcoin =
    bitcoinOptions === undefined
      ? undefined
      : await connectBitcoin(options.store, bitcoinOptions, (network) => openBitcoinBackend(bitcoinOptions, network));
  // With a node, new quotes' refund heights come from the deployed contract, never from a setting that may differ.
  const engine =
    ethereum === undefined
      ? options.engine
      : { ...options.engine, ethereumRefundDelayBlocks: ethereum.refundDelayBlocks };
  const ethereumHealth = new ChainHealth('ethereum', options.logger);
  const bitcoinHealth = new ChainHealth('bitcoin', options.logger);
  const ethereumPollMs = options.ethereum?.pollIntervalMs ?? DEFAULT_ETHEREUM_POLL_INTERVAL_MS;
  const bitcoinPollMs = options.bitcoin?.pollIntervalMs ?? DEFAULT_BITCOIN_POLL_INTERVAL_MS;
  const followed: FollowedChain[] = [];
  if (ethereum !== undefined) followed.push(followedChain(options, ethereumHealth, ethereumPollMs));
  if (bitcoin !== undefined) followed.push(followedChain(options, bitcoinHealth, bitcoinPollMs));
  const readiness = new Readiness(store, followed);
  const metrics =
    options.metrics === false
      ? undefined
      : new ServiceMetrics({
          store,
          chainProgress: () => readiness.progress(),
          chainHealth: () => followed.map((chain) => chain.health.reading()),
        });
  const api = await buildApiServer({
    store,
    ...(metrics === undefined ? {} : { metrics }),
    readiness: () => readiness.check(),
    ...(ethereum === undefined ? {} : { ethereumChainId: ethereum.chainId }),
    loggerInstance: options.logger,
    accessLog: options.logger.isLevelEnabled('debug'),
    ...(options.responseCacheBytes === undefined ? {} : { responseCacheBytes: options.responseCacheBytes }),
  });
  // The WebSocket namespaces share the API's HTTP server and port.
  const sockets = await attachSocketServer(api.server, {
    store,
    logger: options.logger,
    ...(ethereum === undefined ? {} : { ethereumChainId: ethereum.chainId }),
    ...(bus === undefined ? {} : { bus }),
    ...(engine === undefined ? {} : { engine }),
    ...(options.sockets === undefined ? {} : { sockets: options.sockets }),
    broadcasters: {
      ...(ethereum === undefined
        ? {}
        : {
            ethereum: {
              carries: (network) => ethereumChainFitsNetwork(ethereum.chainId, network),
              broadcast: (hex) => ethereum.backend.broadcast(hex),
            },
          }),
      ...(bitcoin === undefined
        ? {}
        : {
            bitcoin: {
              carries: (network) => network === bitcoin.network,
              broadcast: (hex) => bitcoin.backend.broadcast(hex),
            },
          }),
      ...options.broadcasters,
    },
  }).catch(async (error: unknown) => {
    await api.close();
    metrics?.stop();
    throw error;
  });
  // Two polls (the one under way when a fund window ends, and the next, which reads what was mined by then) and on
  // Ethereum a slot, as long as a block may take to reach the node after its timestamp.
  const graces = [
    ...(ethereum === undefined ? [] : [2 * ethereumPollMs + ETHEREUM_SLOT_MS]),
    ...(bitcoin === undefined ? [] : [2 * bitcoinPollMs]),
  ];
  const fundWindowGraceMs = Math.max(0, ...graces);
  const parts = buildEngine({
    store,
    options: resolveEngineOptions({ fundWindowGraceMs, ...engine }),
    outlets: sockets.outlets,
    now: Date.now,
    logger: options.logger,
    ...(metrics === undefined ? {} : { events: metrics }),
  });
  sockets.serve(parts);
  try {
    await api.listen({ host: options.host, port: options.port });
  } catch (error) {
    await parts.close();
    await sockets.close();
    await api.close();
    metrics?.stop();
    throw error;
  }
  const { publish } = parts.transitions;
  const dependencies = { store: options.store, publish, logger: options.logger, now: Date.now };
  const ethereumWatch = options.ethereum;
  const watches = [
    ...(ethereum === undefined || ethereumWatch === undefined
      ? []
      : [
          watchWhileLeading(options, 'ethereum', () =>
            startEthereumWatch(ethereum, { ...dependencies, health: ethereumHealth }, ethereumWatch),
          ),
        ]),
    ...(bitcoin === undefined || bitcoinOptions === undefined
      ? []
      : [
          watchWhileLeading(options, 'bitcoin', () =>
            startBitcoinWatch(bitcoin, { ...dependencies, health: bitcoinHealth }, bitcoinOptions),
          ),
        ]),
  ];
  const probes = [
    ...(ethereum === undefined ? [] : [startNodeProbe(ethereum.backend, ethereumHealth, ethereumPollMs)]),
    ...(bitcoin === undefined ? [] : [startNodeProbe(bitcoin.backend, bitcoinHealth, bitcoinPollMs)]),
  ];
  return {
    url: urlOf(api.server.address() as AddressInfo),
    transitions: parts.transitions,
    async close() {
      for (const watch of watches) {
        await watch.follower.stop();
        await watch.leadership.close();
      }
      for (const probe of probes) await probe.stop();
      await ethereum?.backend.close();
      await bitcoin?.backend.close();
      // New connections are refused at once: winding the socket namespaces down can take a while.
      // The server's own 'close' comes only once every in-flight response has been sent; Fastify's
      // close alone does not wait for it once the server has stopped listening.
      const drained = once(api.server, 'close');
      api.server.close();
      api.server.closeIdleConnections();
      await parts.close();
      await sockets.close();
      await api.close();
      await drained;
      await bus?.close();
      outage.stop();
      metrics?.stop();
    },
  };
}

/**
 * Instances sharing a database take turns watching the chain: only the leader reads the node and moves
 * orders, and the socket.io cluster adapter carries its stateChanged events to every instance's clients.
 */
function watchWhileLeading(
  options: ServiceOptions,
  chain: ChainKind,
  startWatch: () => PeriodicTask,
): { leadership: Leadership; follower: WhileLeading } {
  const { logger } = options;
  const leadership = openLeadership(options.databaseUrl ?? 'sqlite::memory:', chain, options.leadership);
  const follower = whileLeading(
    leadership,
    async () => {
      logger.info({ chain, node: nodeUrlForLog(nodeUrlOf(options, chain)) }, 'watching the chain');
      const task = startWatch();
      return {
        async stop() {
          await task.stop();
          logger.info({ chain }, 'no longer watching the chain');
        },
      };
    },
    (error) => logger.error({ err: error, chain }, 'starting or stopping the chain watch failed'),
  );
  return { leadership, follower };
}

function nodeUrlOf(options: ServiceOptions, chain: ChainKind): string {
  if (chain === 'ethereum') return options.ethereum?.rpcUrl ?? '';
  return options.bitcoin?.esploraUrl ?? options.bitcoin?.rpcUrl ?? '';
}

/**
 * A chain `/readyz` answers for. Its node counts as unreachable once nothing polled it for two poll intervals
 * and four call timeouts: a poll makes several calls, each bounded by the timeout, so only a poll stuck on a node
 * that answers each call just in time stays out that long.
 */
function followedChain(options: ServiceOptions, health: ChainHealth, pollIntervalMs: number): FollowedChain {
  const { chain } = health;
  return {
    chain,
    health,
    staleAfterMs: 2 * pollIntervalMs + 4 * NODE_TIMEOUT_MS,
    allowedLagBlocks: options.allowedLagBlocks?.[chain] ?? DEFAULT_ALLOWED_LAG_BLOCKS[chain],
  };
}

/** The viem JSON-RPC backend: the one Ethereum implementation. */
function ethereumBackendFor(options: EthereumWatchOptions, logger: Logger): EthereumBackendFactory {
  return (swapContractAddress) =>
    new EthereumBackend({
      rpcUrl: options.rpcUrl,
      swapContractAddress,
      onForeignLogs: ({ range, count, addresses }) =>
        logger.warn(
          { chain: 'ethereum', from: range.from, to: range.to, count, addresses },
          'node answered logs of other contracts: dropped',
        ),
      ...(options.maxRangeBlocks === undefined ? {} : { maxRangeBlocks: options.maxRangeBlocks }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
}

function urlOf({ address, family, port }: AddressInfo): string {
  return family === 'IPv6' ? `http://[${address}]:${port}` : `http://${address}:${port}`;
}

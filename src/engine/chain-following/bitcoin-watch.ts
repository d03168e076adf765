import type { Logger } from 'pino';
import type { ChainBackend, FeeRateSource } from '../../chains/chain-backend.js';
import { findMarket, ONCHAIN_ASSETS, type Network } from '../../domain/markets.js';
import type { ChainWatchStore, ConfigurationReadStore } from '../../store/store.js';
import type { ChainHealth } from './chain-health.js';
import { ChainWatcher } from './chain-watcher.js';
import type { SightingStore } from './mempool-sightings.js';
import type { StateChangedPublisher } from '../lifecycle/order-transitions.js';
import { startPeriodicTask, type PeriodicTask } from '../operations/periodic-task.js';
import { refusedAtStart } from './node-failure-report.js';

/** How the service follows Bitcoin: exactly one of `esploraUrl` and `rpcUrl`. */
export interface BitcoinWatchOptions {
  /** Esplora REST base URL, e.g. https://mempool.space/api. */
  readonly esploraUrl?: string;
  /** Bitcoin Core JSON-RPC URL; may carry the user and password. */
  readonly rpcUrl?: string;
  /** Used when `rpcUrl` carries no credentials. */
  readonly rpcUser?: string;
  readonly rpcPassword?: string;
  /** Milliseconds one call to the node may take, its whole answer read; 15,000 by default. */
  readonly timeoutMs?: number;
  /** Blocks a funding, claim or refund needs before it counts (1: in a block is enough). Default 2. */
  readonly confirmations?: number;
  /** Milliseconds between polls of the node (blocks, the orders listed, the fee rate). Default 10,000. */
  readonly pollIntervalMs?: number;
  /** Milliseconds between mempool passes, which read the mempool alone between polls. Default 2,000. */
  readonly mempoolIntervalMs?: number;
  /** First block to read when the store has no cursor yet; the node's tip at first start by default. */
  readonly startHeight?: number;
}

export const DEFAULT_BITCOIN_CONFIRMATIONS = 2;
export const DEFAULT_BITCOIN_POLL_INTERVAL_MS = 10_000;
/**
 * A funding broadcast is seen within this (target: under 5 s) at one listing request per pass, a load public
 * Esplora servers' rate limits allow (docs/bitcoin.md, "Polling").
 */
export const DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS = 2_000;

export interface BitcoinConnection {
  readonly backend: BitcoinChainBackend;
  readonly network: Network;
  /** On-chain tickers of the node's network. */
  readonly tickers: readonly string[];
}

/** A Bitcoin node's backend: the chain interface, and the fee rate refunds are priced at. */
export type BitcoinChainBackend = ChainBackend & FeeRateSource;

/** Opens the backend that reads addresses with `network`'s prefixes; the composition root picks the implementation. */
export type BitcoinBackendFactory = (network: Network) => BitcoinChainBackend;

/**
 * Connects before the service serves: asks the node which network it follows (refusing one that does not fit
 * an offered Bitcoin market: a mainnet order followed on a test chain would be paid with worthless coins),
 * and gives the store a Bitcoin chain view when it has none, so refund details have a height and a fee rate.
 * A node that fails a call or answers what no node does ends the start with one line naming the call and the
 * fault (`refusedAtStart`).
 */
export async function connectBitcoin(
  store: ConfigurationReadStore & ChainWatchStore,
  options: BitcoinWatchOptions,
  openBackend: BitcoinBackendFactory,
): Promise<BitcoinConnection> {
  try {
    return await connectedBitcoin(store, options, openBackend);
  } catch (error) {
    throw refusedAtStart('bitcoin', error);
  }
}

async function connectedBitcoin(
  store: ConfigurationReadStore & ChainWatchStore,
  options: BitcoinWatchOptions,
  openBackend: BitcoinBackendFactory,
): Promise<BitcoinConnection> {
  // The network is what the node says; the backend then reads addresses with that network's prefixes.
  const { network } = await openBackend('mainnet').identity();
  const { chains, markets } = await store.getConfiguration();
  const misfits = markets
    .map((name) => findMarket(name))
    .filter(
      (market) => market?.onchain.chain === 'bitcoin' && (market.network === 'mainnet') !== (network === 'mainnet'),
    );
  if (misfits.length > 0) {
    const names = misfits.map((market) => `${market?.name} (${market?.network})`).join(', ');
    throw new Error(`refusing to watch the Bitcoin node: it follows ${network}, which does not fit ${names}`);
  }
  const backend = openBackend(network);
  if (chains.bitcoin === undefined) {
    const [tip, feeRate] = await Promise.all([backend.tip(), backend.feeRate()]);
    await store.setChainViews({ bitcoin: { blockHeight: tip.height, feeTokensPerVirtualByte: feeRate ?? 1 } });
  }
  const tickers = ONCHAIN_ASSETS.filter((asset) => asset.chain === 'bitcoin' && asset.network === network).map(
    (asset) => asset.ticker,
  );
  return { backend, network, tickers };
}

/**
 * Polls the node: moves orders (the chain watcher), then brings the chain view's fee rate up to date. One task
 * does both in turn, so the fee write never races the watcher's height write. Between polls the same task runs
 * mempool passes, each one listing request plus the transactions new since the last: only when what the
 * mempool holds for the watched orders changed does one run a poll at once (docs/chain-watcher.md).
 */
export function startBitcoinWatch(
  connection: BitcoinConnection,
  dependencies: {
    store: ConfigurationReadStore & SightingStore;
    publish: StateChangedPublisher;
    logger: Logger;
    now: () => number;
    health: ChainHealth;
  },
  options: BitcoinWatchOptions,
): PeriodicTask {
  const { store, logger, health } = dependencies;
  const watcher = new ChainWatcher({
    backend: connection.backend,
    store,
    tickers: connection.tickers,
    confirmations: options.confirmations ?? DEFAULT_BITCOIN_CONFIRMATIONS,
    ...(options.startHeight === undefined ? {} : { startHeight: options.startHeight }),
    publish: dependencies.publish,
    now: dependencies.now,
    logger,
    onTip: (tip) => health.tipSeen(tip),
    onMempoolListed: (listed) => health.mempoolListed(listed),
  });
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_BITCOIN_POLL_INTERVAL_MS;
  const mempoolIntervalMs = Math.min(options.mempoolIntervalMs ?? DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS, pollIntervalMs);
  let lastPollAt: number | undefined;
  // Monotonic, unlike `now` (which tests may stop): a poll is due on the pass nearest the poll interval.
  const pollDue = () =>
    lastPollAt === undefined || performance.now() - lastPollAt >= pollIntervalMs - mempoolIntervalMs / 2;
  return startPeriodicTask(
    async (signal) => {
      health.pollStarted();
      if (!pollDue()) {
        if (await watcher.mempoolChanged()) await watcher.catchUp(signal);
        return;
      }
      lastPollAt = performance.now();
      await watcher.catchUp(signal);
      const feeRate = await connection.backend.feeRate();
      const view = (await store.getConfiguration()).chains.bitcoin;
      if (feeRate !== undefined && view !== undefined && view.feeTokensPerVirtualByte !== feeRate) {
        await store.setChainViews({ bitcoin: { ...view, feeTokensPerVirtualByte: feeRate } });
      }
      health.pollSucceeded();
    },
    { intervalMs: mempoolIntervalMs, onError: (error) => health.pollFailed(error) },
  );
}

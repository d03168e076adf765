import type { Logger } from 'pino';
import type { ChainBackend } from '../../chains/chain-backend.js';
import { ethereumChainFitsNetwork, ethereumChainMismatch } from '../../domain/chain-networks.js';
import { isEthereumAddress } from '../../domain/ethereum.js';
import { assetOfIn } from '../../domain/ethereum-slots.js';
import type { SwapContractVersion } from '../../domain/order.js';
import { recordedSwapContract, switchSwapContract } from '../../domain/swap-contracts.js';
import { catalogOf, type MarketCatalog } from '../../domain/market-catalog.js';
import type { ChainWatchStore, ConfigurationReadStore } from '../../store/store.js';
import type { ChainHealth } from './chain-health.js';
import { ChainWatcher } from './chain-watcher.js';
import type { SightingStore } from './mempool-sightings.js';
import type { StateChangedPublisher } from '../lifecycle/order-transitions.js';
import { startPeriodicTask, type PeriodicTask } from '../operations/periodic-task.js';
import { refusedAtStart } from './node-failure-report.js';

/** How the service follows an Ethereum node. Only `rpcUrl` is required. */
export interface EthereumWatchOptions {
  /** JSON-RPC (HTTP) URL of the node. */
  readonly rpcUrl: string;
  /**
   * The swap contract new quotes use; when it is not the store's `chains.ethereum.swapContractAddress`, it becomes
   * the current contract of the history, and the earlier ones stay watched for the orders made on them.
   */
  readonly swapContractAddress?: string;
  /** Blocks a funding, claim or refund needs before it counts (1: in a block is enough). Default 12. */
  readonly confirmations?: number;
  /** Milliseconds between polls of the node. Default 1,000. */
  readonly pollIntervalMs?: number;
  /** Milliseconds one JSON-RPC call may take, its whole answer read. Default 10,000. */
  readonly timeoutMs?: number;
  /** Longest block range of one log query. Default 2,000. */
  readonly maxRangeBlocks?: number;
  /** First block to read when the store has no cursor yet; the node's tip at first start by default. */
  readonly startHeight?: number;
}

export const DEFAULT_ETHEREUM_CONFIRMATIONS = 12;
export const DEFAULT_ETHEREUM_POLL_INTERVAL_MS = 1_000;

/**
 * A backend of an Ethereum node watching the current swap contract (and those of the orders it is handed), which it
 * can ask for the current contract's refund delay and version.
 */
export interface EthereumContractBackend extends ChainBackend {
  refundDelay(): Promise<number>;
  swapContractVersion(): Promise<SwapContractVersion>;
}

/** Opens the backend for the swap contract at `swapContractAddress`; the composition root picks the implementation. */
export type EthereumBackendFactory = (swapContractAddress: string) => EthereumContractBackend;

export interface EthereumConnection {
  readonly backend: EthereumContractBackend;
  readonly chainId: number;
  /** The deployed contract's refund delay: new quotes' refund height estimate is the tip plus this. */
  readonly refundDelayBlocks: number;
}

/**
 * Connects to the node and the contract before the service starts serving: reads the chain id and the
 * contract's refund delay, and makes the contract the current one of the store's Ethereum chain view, recording
 * its version (read from its code) in the view's history. A node that fails a call or answers what no node
 * does ends the start with one line naming the call and the fault (`refusedAtStart`).
 */
export async function connectEthereum(
  store: ConfigurationReadStore & ChainWatchStore,
  options: EthereumWatchOptions,
  openBackend: EthereumBackendFactory,
  now: () => number = Date.now,
): Promise<EthereumConnection> {
  try {
    return await connectedEthereum(store, options, openBackend, now);
  } catch (error) {
    throw refusedAtStart('ethereum', error);
  }
}

async function connectedEthereum(
  store: ConfigurationReadStore & ChainWatchStore,
  options: EthereumWatchOptions,
  openBackend: EthereumBackendFactory,
  now: () => number,
): Promise<EthereumConnection> {
  const configuration = await store.getConfiguration();
  const { chains, markets } = configuration;
  const catalog = catalogOf(configuration);
  const address = options.swapContractAddress ?? chains.ethereum?.swapContractAddress;
  if (address === undefined || !isEthereumAddress(address)) {
    throw new Error('watching Ethereum needs a swap contract address: in the store (chains.ethereum) or as an option');
  }
  const backend = openBackend(address);
  const identity = await backend.identity();
  const chainId = identity.chainId ?? 0;
  const mismatch = ethereumChainMismatch(chainId, markets, catalog);
  if (mismatch !== undefined) throw new Error(`refusing to watch the Ethereum node: ${mismatch}`);
  // The version first: an address without code is refused with that reason rather than a failed call.
  const version = await backend.swapContractVersion();
  const refundDelayBlocks = await backend.refundDelay();
  const view = chains.ethereum ?? { blockHeight: (await backend.tip()).height, swapContractAddress: address };
  const recorded = recordedSwapContract(view, address);
  const isCurrent = chains.ethereum?.swapContractAddress.toLowerCase() === address.toLowerCase();
  if (!isCurrent || recorded?.version !== version) {
    // A contract already current keeps its `since`: only its version is corrected (an import records a snapshot's
    // contract as version 2, the snapshot format having no place for the version).
    const since = isCurrent && recorded !== undefined ? recorded.since : now();
    await store.setChainViews({ ethereum: switchSwapContract(view, { address, version, since }) });
  }
  return { backend, chainId, refundDelayBlocks };
}

/**
 * The on-chain tickers whose orders a node with `chainId` carries: every Ethereum asset of the catalog whose network
 * fits the chain. Configured tokens' orders are funded in the same contract, so they are followed with ether's.
 */
export function ethereumTickersOf(catalog: MarketCatalog, chainId: number): string[] {
  return catalog.assets
    .filter((asset) => asset.chain === 'ethereum' && ethereumChainFitsNetwork(chainId, asset.network))
    .map((asset) => asset.ticker);
}

/** Polls the node and moves orders until stopped. */
export function startEthereumWatch(
  connection: EthereumConnection,
  dependencies: {
    store: ConfigurationReadStore & SightingStore;
    publish: StateChangedPublisher;
    logger: Logger;
    now: () => number;
    health: ChainHealth;
  },
  options: EthereumWatchOptions,
): PeriodicTask {
  const watcherFor = (catalog: MarketCatalog): ChainWatcher =>
    new ChainWatcher({
      backend: connection.backend,
      store: dependencies.store,
      tickers: ethereumTickersOf(catalog, connection.chainId),
      assetOf: assetOfIn(catalog),
      confirmations: options.confirmations ?? DEFAULT_ETHEREUM_CONFIRMATIONS,
      ...(options.startHeight === undefined ? {} : { startHeight: options.startHeight }),
      publish: dependencies.publish,
      now: dependencies.now,
      logger: dependencies.logger,
      onTip: (tip) => dependencies.health.tipSeen(tip),
    });
  // A token configured while the service runs (`lnswap tokens add`) is followed from the next poll: each poll
  // reads the configuration (held in memory) and gets a new watcher only when its assets differ, so the watcher's
  // count of unstable steps survives the configuration changes providers make all the time.
  let watching: { assets: string; watcher: ChainWatcher } | undefined;
  return startPeriodicTask(
    async (signal) => {
      dependencies.health.pollStarted();
      const catalog = catalogOf(await dependencies.store.getConfiguration());
      const assets = catalog.assets.map((asset) => `${asset.ticker}:${asset.tokenAddress ?? ''}`).join(',');
      if (watching?.assets !== assets) watching = { assets, watcher: watcherFor(catalog) };
      await watching.watcher.catchUp(signal);
      dependencies.health.pollSucceeded();
    },
    {
      intervalMs: options.pollIntervalMs ?? DEFAULT_ETHEREUM_POLL_INTERVAL_MS,
      onError: (error) => dependencies.health.pollFailed(error),
    },
  );
}

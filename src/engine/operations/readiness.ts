import { isMisbehaviour } from '../../chains/node-faults.js';
import type { ChainKind } from '../../domain/markets.js';
import type { ChainWatchStore, OrderReadStore } from '../../store/store.js';
import type { ChainHealthReading } from '../chain-following/chain-health.js';

/** Why the service is not ready: the bare text `/readyz` answers with 503. */
export type NotReadyToken =
  'StoreUnavailable' | 'ChainUnreachable' | 'ChainNodeMisbehaving' | 'ChainNotWatchedYet' | 'ChainBehind';

export type ReadinessVerdict = { readonly ready: true } | { readonly ready: false; readonly token: NotReadyToken };

/**
 * A followed chain: what this instance last heard from its node (kept by the watcher or the node probe, never
 * read from the node per request), how long that may be old, and how many blocks the watcher may trail the
 * node's tip and still be ready.
 */
export interface FollowedChain {
  readonly chain: ChainKind;
  readonly health: { reading(): ChainHealthReading };
  /** A node last polled longer ago than this counts as unreachable: polls are stuck on it. */
  readonly staleAfterMs: number;
  readonly allowedLagBlocks: number;
}

/** Where the watcher of a chain stands against its node; `processedHeight` is undefined before its first step. */
export interface ChainProgress {
  readonly chain: ChainKind;
  readonly tipHeight: number;
  readonly processedHeight: number | undefined;
  readonly allowedLagBlocks: number;
}

/** Lag a watcher may have by default: two Bitcoin blocks (20 minutes), 25 Ethereum blocks (5 minutes). */
export const DEFAULT_ALLOWED_LAG_BLOCKS: Readonly<Record<ChainKind, number>> = { bitcoin: 2, ethereum: 25 };

/** How long a probe of the store may take before it counts as not answering. */
export const DEFAULT_PROBE_TIMEOUT_MS = 2_000;

/** Any id will do: the probe asks whether the database answers, not what it holds. */
const PROBE_ORDER_ID = '00000000-0000-0000-0000-000000000000';

class ProbeTimeout extends Error {}

function withinTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout('probe timed out')), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether the instance can serve: its store answers, each followed chain's node answered its last poll honestly
 * and recently, and the chain's watcher is within its allowed lag of the node's tip (read from the shared cursor,
 * so a follower instance answers for the leader's watcher).
 */
export class Readiness {
  constructor(
    private readonly store: ChainWatchStore & OrderReadStore,
    private readonly chains: readonly FollowedChain[],
    private readonly timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async check(): Promise<ReadinessVerdict> {
    try {
      await withinTimeout(this.store.getOrder(PROBE_ORDER_ID), this.timeoutMs);
    } catch {
      return { ready: false, token: 'StoreUnavailable' };
    }
    for (const chain of this.chains) {
      const token = await this.chainVerdict(chain);
      if (token !== undefined) return { ready: false, token };
    }
    return { ready: true };
  }

  /** Each followed chain's last tip and processed height; a chain whose node never answered, or while the store does not, is left out. */
  async progress(): Promise<ChainProgress[]> {
    const readings = await Promise.all(this.chains.map((chain) => this.read(chain).catch(() => undefined)));
    return readings.filter((reading): reading is ChainProgress => reading !== undefined);
  }

  private async chainVerdict(chain: FollowedChain): Promise<NotReadyToken | undefined> {
    const { fault, polledAt } = chain.health.reading();
    if (fault !== undefined) return isMisbehaviour(fault) ? 'ChainNodeMisbehaving' : 'ChainUnreachable';
    if (polledAt !== undefined && this.now() - polledAt > chain.staleAfterMs) return 'ChainUnreachable';
    let progress: ChainProgress | undefined;
    try {
      progress = await this.read(chain);
    } catch {
      return 'StoreUnavailable';
    }
    if (progress?.processedHeight === undefined) return 'ChainNotWatchedYet';
    return progress.tipHeight - progress.processedHeight > chain.allowedLagBlocks ? 'ChainBehind' : undefined;
  }

  /** Undefined until the node has answered a tip. */
  private async read({ chain, health, allowedLagBlocks }: FollowedChain): Promise<ChainProgress | undefined> {
    const { tip } = health.reading();
    if (tip === undefined) return undefined;
    const watch = await withinTimeout(this.store.getChainWatch(chain), this.timeoutMs);
    return { chain, tipHeight: tip.height, processedHeight: watch?.cursor.height, allowedLagBlocks };
  }
}

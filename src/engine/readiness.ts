import type { BlockRef } from '../domain/chain-observations.js';
import type { ChainKind } from '../domain/markets.js';
import type { Store } from '../store/store.js';

/** Why the service is not ready: the bare text `/readyz` answers with 503. */
export type NotReadyToken = 'StoreUnavailable' | 'ChainUnreachable' | 'ChainNotWatchedYet' | 'ChainBehind';

export type ReadinessVerdict = { readonly ready: true } | { readonly ready: false; readonly token: NotReadyToken };

/** A followed chain: its node, and how many blocks the watcher may trail the node's tip and still be ready. */
export interface FollowedChain {
  readonly chain: ChainKind;
  readonly node: { tip(): Promise<BlockRef> };
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

/** How long a probe of the store or a node may take before it counts as not answering. */
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
 * Whether the instance can serve: its store answers, and each followed chain's watcher is within its allowed
 * lag of the node's tip (read from the shared cursor, so a follower instance answers for the leader's watcher).
 */
export class Readiness {
  constructor(
    private readonly store: Store,
    private readonly chains: readonly FollowedChain[],
    private readonly timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
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

  /** Each followed chain's tip and processed height; a chain whose node or store does not answer is left out. */
  async progress(): Promise<ChainProgress[]> {
    const readings = await Promise.all(this.chains.map((chain) => this.read(chain).catch(() => undefined)));
    return readings.filter((reading): reading is ChainProgress => reading !== undefined);
  }

  private async chainVerdict(chain: FollowedChain): Promise<NotReadyToken | undefined> {
    let progress: ChainProgress;
    try {
      progress = await this.read(chain);
    } catch {
      return 'ChainUnreachable';
    }
    if (progress.processedHeight === undefined) return 'ChainNotWatchedYet';
    return progress.tipHeight - progress.processedHeight > chain.allowedLagBlocks ? 'ChainBehind' : undefined;
  }

  private async read({ chain, node, allowedLagBlocks }: FollowedChain): Promise<ChainProgress> {
    const [tip, watch] = await withinTimeout(
      Promise.all([node.tip(), this.store.getChainWatch(chain)]),
      this.timeoutMs,
    );
    return { chain, tipHeight: tip.height, processedHeight: watch?.cursor.height, allowedLagBlocks };
  }
}

import type { Logger } from 'pino';
import type { BlockRef } from '../../domain/chain-observations.js';
import type { ChainKind } from '../../domain/markets.js';
import { isMisbehaviour, nodeFaultOf, type NodeFault } from '../../chains/node-faults.js';
import { startPeriodicTask, type PeriodicTask } from '../operations/periodic-task.js';
import { failureFields } from './node-failure-report.js';

/** What this instance last heard from a chain's node. */
export interface ChainHealthReading {
  readonly chain: ChainKind;
  /** The node's tip as last read; undefined before the first answer. */
  readonly tip: BlockRef | undefined;
  /** How the last poll of the node failed; undefined when it answered (or was never polled). */
  readonly fault: NodeFault | undefined;
  /** When the node was last polled (ms since the epoch), whatever the outcome; undefined before the first poll. */
  readonly polledAt: number | undefined;
  /** Failed polls since the process started, by fault. */
  readonly faultCounts: Readonly<Partial<Record<NodeFault, number>>>;
  /**
   * Whether the node listed its mempool at the watcher's last try, and how many listings it failed to give since
   * the process started; undefined where this instance's watcher never read a mempool (Ethereum, or not leading).
   */
  readonly mempool: { readonly listed: boolean; readonly misses: number } | undefined;
}

/**
 * A chain node's health as the watcher (or, on an instance that does not watch, the node probe) last saw it.
 * `/readyz` and `/metrics` read this and never the node: a request to them costs no call to the node, however
 * many arrive and however slowly the node answers.
 */
export class ChainHealth {
  private tip: BlockRef | undefined;
  private fault: NodeFault | undefined;
  private polledAt: number | undefined;
  private watcherPolledAt: number | undefined;
  private watcherPolling = false;
  private readonly faultCounts: Partial<Record<NodeFault, number>> = {};
  private mempool: { listed: boolean; misses: number } | undefined;

  constructor(
    readonly chain: ChainKind,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  tipSeen(tip: BlockRef): void {
    this.tip = tip;
  }

  /**
   * The watcher tried to list the node's mempool. A node that cannot keeps the chain followed, its blocks read,
   * so this is no fault of the node's: payments are seen when mined instead of when sent.
   */
  mempoolListed(listed: boolean): void {
    const misses = (this.mempool?.misses ?? 0) + (listed ? 0 : 1);
    this.mempool = { listed, misses };
  }

  /** The watcher starts a poll: the probe leaves the node to it. */
  pollStarted(): void {
    this.watcherPolling = true;
  }

  /**
   * A poll went through. The probe polls only while no watcher of this instance does (never between two of its
   * polls), so its success never hides a fault the watcher keeps meeting.
   */
  pollSucceeded(by: 'watcher' | 'probe' = 'watcher'): void {
    this.polled(by);
    if (this.fault === undefined) return;
    this.logger.info({ chain: this.chain }, `${this.chain} node answering again`);
    this.fault = undefined;
  }

  /**
   * Records a failed poll and logs it, the node's fault named. An error that is not the node's (the store
   * failing) leaves the node's condition as it was: `/readyz` reports the store on its own.
   */
  pollFailed(error: unknown, by: 'watcher' | 'probe' = 'watcher'): void {
    const fault = nodeFaultOf(error);
    this.polled(by);
    if (fault === undefined) {
      this.logger.error({ err: error, chain: this.chain }, `${this.chain} watcher poll failed`);
      return;
    }
    this.fault = fault;
    this.faultCounts[fault] = (this.faultCounts[fault] ?? 0) + 1;
    const how = isMisbehaviour(fault) ? 'misbehaving' : 'failing';
    this.logger.error({ ...failureFields(error), chain: this.chain }, `${this.chain} node ${how}: ${fault}`);
  }

  reading(): ChainHealthReading {
    return {
      chain: this.chain,
      tip: this.tip,
      fault: this.fault,
      polledAt: this.polledAt,
      faultCounts: { ...this.faultCounts },
      mempool: this.mempool === undefined ? undefined : { ...this.mempool },
    };
  }

  /** Whether this instance's watcher is polling, or finished a poll within the last `ms`. */
  watchedWithin(ms: number): boolean {
    return this.watcherPolling || (this.watcherPolledAt !== undefined && this.now() - this.watcherPolledAt < ms);
  }

  private polled(by: 'watcher' | 'probe'): void {
    this.polledAt = this.now();
    if (by === 'watcher') {
      this.watcherPolling = false;
      this.watcherPolledAt = this.polledAt;
    }
  }
}

/**
 * Reads the node's tip every `intervalMs` unless this instance's watcher is polling or polled it within two
 * intervals: an instance that does not lead the chain's watch still knows its node's health, and the leader's
 * node is not asked twice.
 */
export function startNodeProbe(
  node: { tip(): Promise<BlockRef> },
  health: ChainHealth,
  intervalMs: number,
): PeriodicTask {
  return startPeriodicTask(
    async () => {
      if (health.watchedWithin(intervalMs * 2)) return;
      const tip = await node.tip();
      health.tipSeen(tip);
      health.pollSucceeded('probe');
    },
    { intervalMs, onError: (error) => health.pollFailed(error, 'probe') },
  );
}

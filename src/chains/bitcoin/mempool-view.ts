import type { Transaction } from 'bitcoinjs-lib';
import { MEMPOOL_BLOCK, type ChainObservation } from '../../domain/chain-observations.js';
import type { WatchSet } from '../chain-backend.js';
import {
  indexWatchSet,
  observeBlock,
  type OutputScripts,
  type PlacedTransaction,
  type WatchIndex,
} from './htlc-observations.js';

/** What a node's API offers to follow its mempool. */
export interface MempoolSource {
  /** Every transaction id in the node's mempool now, as the node answered them (checked here). */
  listTxIds(): Promise<readonly unknown[]>;
  /** The transaction, held to its id; undefined when the node does not have it (it left, or never was). */
  transaction(txId: string): Promise<Transaction | undefined>;
}

export interface MempoolLimits {
  /** Transactions read from the node per pass at most, besides those the orders already name. */
  readonly readsPerPass: number;
  /** Mempool transaction ids remembered at most (read or waiting to be). */
  readonly rememberedTxIds: number;
}

/**
 * 20 reads a pass follow 10 new transactions a second at the default 2 s mempool interval (mainnet averages a
 * few), at 10 requests a second; a backlog (a cold start on a full mempool) drains at that pace, newest first.
 * 100,000 remembered ids take about 15 MB.
 */
export const DEFAULT_MEMPOOL_LIMITS: MempoolLimits = { readsPerPass: 20, rememberedTxIds: 100_000 };

const TX_ID = /^[0-9a-f]{64}$/;

/**
 * A transaction read, with the watch set it was read under: until a newer watch set has been matched against it,
 * it may still pay an order created since that set was listed, so it is kept whole.
 */
interface Read {
  readonly tx: Transaction;
  readonly readUnder: WatchSet;
}

/**
 * A mempool transaction not yet read, one read that touches no watched order (matched against a watch set listed
 * after the read), or one read and kept: it touches an order, or has not met a newer watch set yet.
 */
type Entry = 'unread' | 'unrelated' | Read;

/**
 * The node's mempool as far as the watched orders go, kept up to date by differences: each pass lists the ids
 * (one request), forgets those that left, and reads only transactions not seen before, so the cost follows
 * the mempool's traffic, never the number of orders. Only transactions that touch an order are kept whole;
 * of the rest only the id is remembered, up to `rememberedTxIds`: past that, new ids wait until others leave
 * (their fundings are then seen when mined). Transactions the orders already name (a funding seen before a
 * restart) are read first and whatever the limits, so a restart never loses a sighting it had made. A caller
 * may pass the same watch set again on passes that do not list the orders (the watcher's mempool passes): a
 * transaction is judged unrelated only against a watch set newer than its read, so a payment to an order
 * created since the set was listed is kept and matched when a newer set comes.
 */
export class MempoolView {
  private readonly entries = new Map<string, Entry>();
  /** The last watch set indexed: a mempool pass passes the same one again, and indexing 10,000 orders costs. */
  private indexed: { readonly watch: WatchSet; readonly index: WatchIndex } | undefined;

  constructor(
    private readonly source: MempoolSource,
    private readonly outputScripts: OutputScripts,
    private readonly limits: MempoolLimits = DEFAULT_MEMPOOL_LIMITS,
  ) {}

  /** What the mempool holds now for `watch`, placed in MEMPOOL_BLOCK in the order first seen. */
  async observations(watch: WatchSet): Promise<ChainObservation[]> {
    const listed = new Set<string>();
    for (const id of await this.source.listTxIds()) if (typeof id === 'string' && TX_ID.test(id)) listed.add(id);
    for (const id of this.entries.keys()) if (!listed.has(id)) this.entries.delete(id);

    const fresh: string[] = [];
    for (const id of listed) {
      if (this.entries.size >= this.limits.rememberedTxIds) break;
      if (this.entries.has(id)) continue;
      this.entries.set(id, 'unread');
      fresh.push(id);
    }
    const named = new Set(
      (watch.knownTxIds ?? []).filter((id) => listed.has(id) && this.entries.get(id) !== 'unrelated'),
    );
    const backlog = [...this.entries].flatMap(([id, entry]) => (entry === 'unread' ? [id] : []));
    // Newest first: a payment just broadcast is what a user waits to see; the backlog drains behind it.
    const waiting = [...new Set([...fresh.reverse(), ...backlog.reverse()])].filter((id) => !named.has(id));
    const toRead = [...named, ...waiting.slice(0, this.limits.readsPerPass)].filter(
      (id) => !(this.entries.get(id) instanceof Object),
    );

    for (const id of toRead) {
      const tx = await this.source.transaction(id);
      this.entries.set(id, tx === undefined ? 'unrelated' : { tx, readUnder: watch });
    }
    return this.classify(watch);
  }

  /**
   * Matches every kept or newly read transaction against the watch set, twice over: the first round learns the
   * HTLC outputs funded in the mempool, so that the second sees a spend of one whichever the node listed first.
   */
  private classify(watch: WatchSet): ChainObservation[] {
    const placed: PlacedTransaction[] = [];
    const reads: Read[] = [];
    for (const entry of this.entries.values()) {
      if (typeof entry === 'string') continue;
      placed.push({ tx: entry.tx, index: reads.length });
      reads.push(entry);
    }
    const watchIndex = this.indexOf(watch);
    observeBlock(MEMPOOL_BLOCK, placed, watchIndex);
    const observations = observeBlock(MEMPOOL_BLOCK, placed, watchIndex);
    const touching = new Set(observations.map((observation) => observation.txId));
    for (const { tx, readUnder } of reads) {
      if (readUnder !== watch && !touching.has(tx.getId())) this.entries.set(tx.getId(), 'unrelated');
    }
    return observations;
  }

  /**
   * The watch set's index, its known outputs copied: matching adds the outputs mempool fundings create, and
   * those must not outlive the pass (a funding may leave the mempool before the next).
   */
  private indexOf(watch: WatchSet): WatchIndex {
    if (this.indexed?.watch !== watch) this.indexed = { watch, index: indexWatchSet(watch, this.outputScripts) };
    const { ordersByScript, outputs } = this.indexed.index;
    return { ordersByScript, outputs: new Map(outputs) };
  }
}

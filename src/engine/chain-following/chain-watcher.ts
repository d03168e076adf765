import type { Logger } from 'pino';
import {
  inMempool,
  type BlockRef,
  type ChainBackend,
  type ChainObservation,
  type WatchSet,
} from '../../chains/chain-backend.js';
import { NodeCallFailed } from '../../chains/node-faults.js';
import {
  deriveChainTarget,
  planChainMoves,
  type ChainContext,
  type ChainTarget,
} from '../../domain/chain-derivation.js';
import { countedObservations, slotMismatches, slotTermsOf, type AssetOfOrder } from '../../domain/ethereum-slots.js';
import type { OrderRecord, OrderTransaction } from '../../domain/order.js';
import { isFinalState, ORDER_STATES, type OrderState } from '../../domain/states.js';
import type { ChainStep, OrderChainUpdate, StateTransition } from '../../store/store.js';
import {
  notYetMined,
  ordersTheMempoolConcerns,
  retreatsFromSighting,
  SightingMemory,
  type SightingStore,
} from './mempool-sightings.js';
import { stateChangedEvent } from '../lifecycle/state-events.js';
import { withFundingTimes } from './funding-times.js';
import { failureFields } from './node-failure-report.js';
import type { StateChangedPublisher } from '../lifecycle/order-transitions.js';

export interface ChainWatcherOptions {
  readonly backend: ChainBackend;
  /** The chain watch role, and order histories: they say which orders the mempool moved (`SightingMemory`). */
  readonly store: SightingStore;
  /** On-chain tickers whose orders this chain settles (only those whose network fits the node). */
  readonly tickers: readonly string[];
  /** Blocks a funding, claim or refund needs before it counts; 1 counts it in the block that holds it. */
  readonly confirmations: number;
  /** Where the very first run starts, when the store has no cursor for the chain yet; the node's tip by default. */
  readonly startHeight?: number;
  readonly publish: StateChangedPublisher;
  readonly now: () => number;
  readonly logger: Logger;
  /** Ethereum: the asset an order's slots must hold; the known markets' (`knownAssetOf`) when absent. */
  readonly assetOf?: AssetOfOrder;
  /** Told every tip the node answers, for `/readyz` and `/metrics`. */
  readonly onTip?: (tip: BlockRef) => void;
  /** Told whether the node listed its mempool, at every try, for `/metrics`. */
  readonly onMempoolListed?: (listed: boolean) => void;
}

/** Every state an order may still leave: the chain can move any of them. */
const WATCHED_STATES: readonly OrderState[] = ORDER_STATES.filter((state) => !isFinalState(state));

/** How often one poll derives again after another writer moved an order under it. */
const CONFLICT_RETRIES = 5;

/**
 * Steps in a row whose last block changed under them (or vanished) before the watcher calls the node unstable.
 * A real reorg moves the head once and the next step goes through; a node answering a new hash for a height on
 * every call never lets a step through, so nothing it says is stored, and this says why the watcher stands still.
 */
export const UNSTABLE_STEPS = 3;

/**
 * Follows one chain and moves the orders it settles. Each poll reads the blocks after the stored cursor (at
 * most the backend's range), then, once at the tip, the node's mempool where the backend follows one
 * (Bitcoin); it stores what the blocks say about watched orders, derives each order again from all its stored
 * observations plus the mempool's current ones and writes moves, observations and cursor in one store
 * transaction: a crash at any point leaves either all of it or none, and the next poll takes up from the
 * stored cursor and reads the mempool afresh. docs/chain-watcher.md.
 */
export class ChainWatcher {
  private headMovedSteps = 0;
  private readonly sightings: SightingMemory;
  /** The watch set the last pass listed, and what the mempool held for it then (`mempoolChanged`). */
  private lastWatch: WatchSet | undefined;
  private lastMempool = mempoolKey([]);
  /**
   * When the last pass that went through read the node: a funding it did not see was sent after it. A funding
   * without a block time of its own (Bitcoin's, the mempool's) counts toward its fund window by it.
   */
  private lastRead: number | undefined;

  constructor(private readonly options: ChainWatcherOptions) {
    this.sightings = new SightingMemory(options.store);
  }

  /** Processes blocks until caught up with the node's tip (or `signal` aborts). */
  async catchUp(signal?: AbortSignal): Promise<void> {
    while (!signal?.aborted) {
      const progress = await this.pollOnce();
      if (progress !== 'behind') return;
    }
  }

  /** One range of blocks: 'behind' when the node has more blocks to read. */
  async pollOnce(): Promise<'caught up' | 'behind' | 'retry'> {
    for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt += 1) {
      const readAt = this.options.now();
      const outcome = await this.step(this.lastRead ?? readAt);
      if (outcome === 'conflict') continue;
      if (outcome !== 'head moved') {
        this.headMovedSteps = 0;
        // Behind the tip a pass reads no mempool: what it did not see may have been sent before it.
        if (outcome === 'caught up') this.lastRead = readAt;
        return outcome;
      }
      this.headMovedSteps += 1;
      // Every step fails from then on until one goes through: the node stays unstable, not every third poll.
      if (this.headMovedSteps >= UNSTABLE_STEPS) {
        const chain = this.options.backend.chain;
        throw new NodeCallFailed(
          'unstable',
          `the ${chain} node`,
          'reading blocks',
          `the last block of the range changed ${UNSTABLE_STEPS} steps in a row`,
        );
      }
      return 'retry';
    }
    return 'retry';
  }

  private async step(sightedBy: number): Promise<'caught up' | 'behind' | 'head moved' | 'conflict'> {
    const { backend, store } = this.options;
    const tip = await backend.tip();
    this.options.onTip?.(tip);
    const stored = await store.getChainWatch(backend.chain);
    const startHeight = stored?.startHeight ?? this.options.startHeight ?? tip.height;

    let cursor = stored?.cursor ?? (await this.blockBefore(startHeight, tip));
    let dropAbove: number | undefined;
    if (stored !== undefined) {
      const onNode = await backend.blockAt(cursor.height);
      if (onNode?.hash !== cursor.hash) {
        cursor = (await this.forkPoint(stored.recentBlocks)) ?? (await this.blockBefore(startHeight, tip));
        dropAbove = cursor.height;
        this.options.logger.warn({ chain: backend.chain, forkHeight: cursor.height }, 'chain reorganised');
      }
    }

    const from = cursor.height + 1;
    const to = Math.min(tip.height, cursor.height + backend.maxRangeBlocks);
    const noNewBlocks = from > to && dropAbove === undefined;
    if (noNewBlocks && backend.mempool === undefined) return 'caught up';
    const head = from > to ? cursor : await backend.blockAt(to);
    if (head === undefined) return 'head moved';

    const orders = await store.listOrdersOfTickersInStates(this.options.tickers, WATCHED_STATES);
    const watch = watchSetOf(orders);
    const fresh =
      from > to ? [] : await withFundingTimes(backend, orders, await backend.observations({ from, to }, watch), head);
    // The range must still end in the same block: otherwise the logs may come from a branch that just lost.
    const headNow = from > to ? head : await backend.blockAt(to);
    if (headNow?.hash !== head.hash) return 'head moved';

    // Behind the tip, the mempool says nothing of transactions mined in the blocks not read yet.
    const mempool = head.height === tip.height ? await this.mempoolAt(tip, watch) : undefined;
    this.lastWatch = watch;
    if (mempool !== undefined) this.lastMempool = mempoolKey(mempool);
    const sighted = await this.sightings.ordersSighted(orders, mempool ?? []);
    const derived = noNewBlocks ? ordersTheMempoolConcerns(orders, mempool ?? [], sighted) : orders;
    if (noNewBlocks && derived.length === 0) return 'caught up';
    const storedObservations = await store.listChainObservations(
      backend.chain,
      derived.map((order) => order.id),
    );
    const { confirmations, assetOf } = this.options;
    const context: ChainContext = {
      chain: backend.chain,
      head,
      sightedBy,
      confirmations,
      ...(assetOf === undefined ? {} : { assetOf }),
    };
    this.noteForeignSlots(orders, fresh);
    const inBlocks = this.updatesFor(derived, storedObservations, fresh, dropAbove, context, mempool ?? [], sighted);
    // Without a mempool read a transaction's absence from it proves nothing: no order moves back for it.
    const updates = mempool === undefined ? inBlocks.filter((update) => !retreatsFromSighting(update)) : inBlocks;
    if (noNewBlocks && updates.length === 0) return 'caught up';
    const step: ChainStep = {
      chain: backend.chain,
      startHeight,
      ...(dropAbove === undefined ? {} : { dropAbove }),
      observations: fresh,
      cursor: head,
      orders: updates,
    };
    const sequences = await store.applyChainStep(step);
    if (sequences === undefined) return 'conflict';
    const moves = updates.flatMap((update) => update.moves);
    moves.forEach((move, index) => this.options.publish(stateChangedEvent(move, sequences[index] as number)));
    if (fresh.length > 0 || updates.length > 0) {
      this.options.logger.info(
        { chain: backend.chain, from, to, observations: fresh.length, ordersUpdated: updates.length },
        'chain blocks processed',
      );
    }
    return head.height < tip.height ? 'behind' : 'caught up';
  }

  /**
   * A mempool pass between polls, cheap whatever the number of orders: reads the mempool against the watch set
   * the last poll listed (no store read, only the transactions new since) and says whether what it holds for
   * the watched orders differs from what that poll saw: a funding, claim or refund arrived, or one left. Then a
   * poll (`catchUp`) moves the orders, with every guarantee of a poll. An order created since the last poll is
   * not in that watch set: a payment to it is kept unjudged by the backend and seen by the next poll. A mempool
   * the node cannot list is logged and changes nothing: blocks come with the polls, never held up by it.
   */
  async mempoolChanged(): Promise<boolean> {
    if (this.lastWatch === undefined) return false;
    const readAt = this.options.now();
    const observations = await this.listMempool(this.lastWatch, 'mempool not read: next poll reads it again');
    const changed = observations !== undefined && mempoolKey(observations) !== this.lastMempool;
    if (observations !== undefined && !changed) this.lastRead = readAt;
    return changed;
  }

  /**
   * The mempool's observations as of `tip`: undefined when the backend reads none, when a block came after
   * `tip` meanwhile (a transaction mined in it would be in neither the blocks read nor the mempool), or when the
   * node failed to list it. Blocks come first: a mempool the node cannot list (logged on every pass) never holds
   * up confirmed funds, and the pass then moves no order back for a transaction's absence from it.
   */
  private async mempoolAt(tip: BlockRef, watch: WatchSet): Promise<ChainObservation[] | undefined> {
    const observations = await this.listMempool(watch, 'mempool not read: blocks only this pass');
    if (observations === undefined) return undefined;
    return (await this.options.backend.blockAt(tip.height + 1)) === undefined ? observations : undefined;
  }

  /**
   * The node's mempool as it concerns `watch`; undefined when the backend reads none, or when the node failed
   * to list it: then logged with `whenUnread` and reported to `onMempoolListed`, as a listing that went through is.
   */
  private async listMempool(watch: WatchSet, whenUnread: string): Promise<ChainObservation[] | undefined> {
    const { backend, logger, onMempoolListed } = this.options;
    if (backend.mempool === undefined) return undefined;
    try {
      const observations = await backend.mempool(watch);
      onMempoolListed?.(true);
      return observations;
    } catch (error) {
      onMempoolListed?.(false);
      logger.warn({ chain: backend.chain, ...failureFields(error) }, whenUnread);
      return undefined;
    }
  }

  /**
   * One log line per funding of a slot that is not the order's (another payment hash, claimer or asset), when
   * first read: it is stored with the rest but moves nothing, and the history holds only moves.
   */
  private noteForeignSlots(orders: readonly OrderRecord[], fresh: readonly ChainObservation[]): void {
    if (this.options.backend.chain !== 'ethereum') return;
    const byId = new Map(orders.map((order) => [order.id, order]));
    for (const observation of fresh) {
      const order = byId.get(observation.orderId);
      if (observation.kind !== 'funding' || order === undefined) continue;
      const mismatches = slotMismatches(observation, slotTermsOf(order, this.options.assetOf));
      if (mismatches.length === 0) continue;
      this.options.logger.warn(
        {
          chain: 'ethereum',
          orderId: order.id,
          txId: observation.txId,
          blockHeight: observation.block.height,
          funder: observation.funder,
          amount: observation.amount.toString(),
          mismatches,
        },
        'foreign slot funded under an order: not counted',
      );
    }
  }

  private updatesFor(
    orders: readonly OrderRecord[],
    storedObservations: readonly ChainObservation[],
    fresh: readonly ChainObservation[],
    dropAbove: number | undefined,
    context: ChainContext,
    mempool: readonly ChainObservation[],
    sighted: ReadonlySet<string>,
  ): OrderChainUpdate[] {
    const byOrder = new Map<string, ChainObservation[]>();
    const everyObservation = new Map<string, ChainObservation[]>();
    const seen = new Set<string>();
    const inBlocks = [...storedObservations, ...fresh].filter(
      (observation) => dropAbove === undefined || observation.block.height <= dropAbove,
    );
    for (const observation of [...storedObservations, ...fresh, ...notYetMined(mempool, inBlocks)]) {
      const ofOrder = everyObservation.get(observation.orderId) ?? [];
      ofOrder.push(observation);
      everyObservation.set(observation.orderId, ofOrder);
      const key = `${observation.block.hash}:${observation.position}`;
      const dropped = dropAbove !== undefined && !inMempool(observation) && observation.block.height > dropAbove;
      if (seen.has(key) || dropped) continue;
      seen.add(key);
      const list = byOrder.get(observation.orderId) ?? [];
      list.push(observation);
      byOrder.set(observation.orderId, list);
    }
    return orders.flatMap((order) => {
      const observations = (byOrder.get(order.id) ?? []).sort(
        (a, b) => a.block.height - b.block.height || a.position - b.position,
      );
      // Only what counts toward an order touches it: a foreign slot leaves it as if nothing had been seen. What
      // a reorg dropped still touches it, and so does a sighting that left the mempool: the order moves back.
      const counted = countedObservations(order, everyObservation.get(order.id) ?? [], context.chain, context.assetOf);
      const touched = counted.length > 0 || sighted.has(order.id);
      const update = touched
        ? this.derivedUpdate(order, observations, context)
        : this.refundHeightUpdate(order, context);
      return update === undefined ? [] : [update];
    });
  }

  private derivedUpdate(
    order: OrderRecord,
    observations: readonly ChainObservation[],
    context: ChainContext,
  ): OrderChainUpdate | undefined {
    const target = deriveChainTarget(order, observations, context);
    if (unchanged(order, target)) return undefined;
    const moves = planChainMoves(order, target, observations, context);
    if (moves === undefined) {
      this.options.logger.warn({ orderId: order.id, from: order.state, to: target.state }, 'no allowed path');
      return undefined;
    }
    const at = this.options.now();
    return {
      orderId: order.id,
      expectedState: order.state,
      moves: moves.map((move): StateTransition => ({
        orderId: order.id,
        from: move.from,
        to: move.to,
        at,
        cause: move.cause,
        ...(move.transaction === undefined ? {} : { transaction: move.transaction }),
        ...(move.to === 'Complete' && target.paymentPreimage !== undefined
          ? { paymentPreimage: target.paymentPreimage }
          : {}),
      })),
      transactions: target.transactions,
      refundableAtBlockHeight: target.refundableAtBlockHeight,
      ...(target.paymentPreimage === undefined ? {} : { paymentPreimage: target.paymentPreimage }),
    };
  }

  /**
   * An order the chain never said anything about (funded before the watcher's first block, as imported):
   * only its refund height can move it, and it keeps the transactions it came with.
   */
  private refundHeightUpdate(order: OrderRecord, context: ChainContext): OrderChainUpdate | undefined {
    if (order.state !== 'Funded' && order.state !== 'PartiallyFunded') return undefined;
    if (context.head.height < order.htlc.refundableAtBlockHeight) return undefined;
    return {
      orderId: order.id,
      expectedState: order.state,
      moves: [
        {
          orderId: order.id,
          from: order.state,
          to: 'WaitingForRefundTx',
          at: this.options.now(),
          cause: {
            source: 'chain',
            reason: 'refundHeightReached',
            chain: context.chain,
            blockHeight: context.head.height,
            blockHash: context.head.hash,
          },
        },
      ],
      transactions: order.transactions,
      refundableAtBlockHeight: order.htlc.refundableAtBlockHeight,
    };
  }

  /** The newest kept block the node still has: everything up to it is unchanged. */
  private async forkPoint(recentBlocks: readonly BlockRef[]): Promise<BlockRef | undefined> {
    for (const block of recentBlocks) {
      const onNode = await this.options.backend.blockAt(block.height);
      if (onNode?.hash === block.hash) return block;
    }
    return undefined;
  }

  /**
   * The block before the first one to read. A node without it, having just answered a tip above it, changed its
   * chain between two reads (or says what no chain does): the poll fails as the node's fault and is retried.
   */
  private async blockBefore(height: number, tip: BlockRef): Promise<BlockRef> {
    if (height <= 0) return { height: -1, hash: '' };
    const { backend } = this.options;
    const block = await backend.blockAt(height - 1);
    if (block !== undefined) return block;
    if (height - 1 > tip.height) throw new Error(`the node has no block ${height - 1} to start watching after`);
    throw new NodeCallFailed(
      'unstable',
      `the ${backend.chain} node`,
      'reading blocks',
      `no block ${height - 1} to start watching after, below the tip it answered`,
    );
  }
}

function watchSetOf(orders: readonly OrderRecord[]): WatchSet {
  return {
    knownTxIds: orders.flatMap((order) => order.transactions.map((transaction) => transaction.id)),
    orders: orders.map((order) => ({
      orderId: order.id,
      payToAddress: order.payToAddress,
      paymentHash: order.paymentHash,
      ...(order.htlc.redeemScript === undefined ? {} : { redeemScript: order.htlc.redeemScript }),
    })),
    fundingOutputs: orders.flatMap((order) =>
      order.transactions.flatMap((transaction) =>
        transaction.type === 'FUND' && transaction.outputIndex !== undefined
          ? [{ orderId: order.id, txId: transaction.id, outputIndex: transaction.outputIndex }]
          : [],
      ),
    ),
  };
}

/** What mempool observations say, in a form two passes compare: their place among the others left out. */
function mempoolKey(observations: readonly ChainObservation[]): string {
  return observations
    .map((observation) => `${observation.kind}:${observation.orderId}:${observation.txId}:${observation.amount ?? ''}`)
    .sort()
    .join(',');
}

function unchanged(order: OrderRecord, target: ChainTarget): boolean {
  return (
    order.state === target.state &&
    order.htlc.refundableAtBlockHeight === target.refundableAtBlockHeight &&
    (target.paymentPreimage === undefined || target.paymentPreimage === order.paymentPreimage) &&
    sameTransactions(order.transactions, target.transactions)
  );
}

function sameTransactions(a: readonly OrderTransaction[], b: readonly OrderTransaction[]): boolean {
  return (
    a.length === b.length &&
    a.every((transaction, index) => {
      const other = b[index];
      return (
        other !== undefined &&
        transaction.type === other.type &&
        transaction.id === other.id &&
        transaction.amount === other.amount &&
        transaction.outputIndex === other.outputIndex &&
        transaction.blockHeight === other.blockHeight
      );
    })
  );
}

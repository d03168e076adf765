import type { BlockRef, ChainObservation } from '../domain/chain-observations.js';
import type { CooperativeRefundSignature } from '../domain/cooperative-refund.js';
import type { TokenAsset } from '../domain/market-catalog.js';
import type { ChainKind } from '../domain/markets.js';
import type {
  ChainViews,
  OrderRecord,
  OrderTransaction,
  ProviderCredential,
  ProviderRecord,
  StateChange,
} from '../domain/order.js';
import type { OrderState } from '../domain/states.js';
import type { RateLimit } from '../domain/token-bucket.js';
import type { TransitionCause } from '../domain/transition-cause.js';
import type { ChangeFeed } from './change-feed.js';

/** A history row with its number: 1 for the order's first state, then one more per move, per order. */
export interface SequencedStateChange extends StateChange {
  readonly sequence: number;
}

/** Everything a snapshot holds besides its orders. */
export interface StoreConfiguration {
  /** Offered market names, canonical, in the order Get Markets lists them. */
  readonly markets: readonly string[];
  readonly chains: ChainViews;
  /** Sorted by id. */
  readonly providers: readonly ProviderRecord[];
  /** Configured ERC-20 tokens, in the operator's order; each adds one market (`catalogOf`) the service may offer. */
  readonly tokens: readonly TokenAsset[];
}

export interface StateTransition {
  readonly orderId: string;
  readonly from: OrderState;
  readonly to: OrderState;
  readonly at: number;
  /** Why the order moved; kept on the history row the move appends. */
  readonly cause: TransitionCause;
  /** Recorded in the same transaction as the move. */
  readonly transaction?: OrderTransaction;
  readonly paymentPreimage?: string;
  /** The winning provider's signed cooperative refunds, stored in the same transaction as the move. */
  readonly cooperativeRefunds?: readonly CooperativeRefundSignature[];
}

/** Where a chain watcher stands: the last block it processed, and the ones before it it may need after a reorg. */
export interface ChainWatchState {
  /** The first block it watched: a reorg deeper than every kept block rescans from here. */
  readonly startHeight: number;
  readonly cursor: BlockRef;
  /** Blocks processed lately, newest first (the cursor among them). */
  readonly recentBlocks: readonly BlockRef[];
}

/** What one processed range of blocks does to one order, derived from all its observations. */
export interface OrderChainUpdate {
  readonly orderId: string;
  /** The state the watcher derived from; the whole step is refused when the order has moved since. */
  readonly expectedState: OrderState;
  /** In order, the first from `expectedState`; empty when only transactions or the refund height change. */
  readonly moves: readonly StateTransition[];
  /** Replace the order's transactions. */
  readonly transactions: readonly OrderTransaction[];
  readonly refundableAtBlockHeight: number;
  readonly paymentPreimage?: string;
}

/** Everything one watcher poll writes, committed together so a crash at any point leaves all or none of it. */
export interface ChainStep {
  readonly chain: ChainKind;
  /** Recorded with the first cursor of the chain. */
  readonly startHeight: number;
  /** A reorg: observations and kept blocks above this height are dropped before anything else. */
  readonly dropAbove?: number;
  /** New observations; one already stored (same block hash and position) is not stored twice. */
  readonly observations: readonly ChainObservation[];
  /** The last block processed; it also becomes the chain view's block height. */
  readonly cursor: BlockRef;
  readonly orders: readonly OrderChainUpdate[];
}

/** Writes of one import, applied in a single database transaction: all or nothing. */
export interface ImportSession {
  /** Replaces offered markets, tokens and chain views; upserts providers by id. */
  writeConfiguration(configuration: StoreConfiguration): Promise<void>;
  /** Inserts orders, replacing any order with the same id (its transactions too). */
  writeOrders(orders: readonly OrderRecord[]): Promise<void>;
  /**
   * Says that no more orders follow, so the store may build now what it put off while they were written
   * (SQLite rebuilds the indexes of an orders table that was empty), while the caller finishes its own checks
   * before the commit. Orders written after it are refused. The commit does the same when it was not called.
   */
  finishOrders(): Promise<void>;
}

export interface StoreImportOptions {
  /**
   * The caller writes each order id at most once in this import, as the snapshot importer does (it refuses a
   * repeated id itself): the store need not look for an earlier write of the same id. SQLite then keeps no
   * record of the ids it wrote into an emptied orders table; should the promise be broken, rebuilding the
   * unique index on ids fails and the import rolls back.
   */
  readonly distinctOrderIds?: boolean;
}

/** The offered markets, chain views, providers and tokens: read by nearly every part. */
export interface ConfigurationReadStore {
  /** Kept in memory between changes: callers must not modify what it resolves to. */
  getConfiguration(): Promise<StoreConfiguration>;
}

/** What the read API and order subscriptions ask of one order. */
export interface OrderReadStore {
  getOrder(id: string): Promise<OrderRecord | undefined>;
  /** Newest first (createdAt descending, then id descending). */
  findOrdersByInvoiceHash(invoiceHash: string, onchainTicker?: string): Promise<OrderRecord[]>;
  getOrderHistory(id: string): Promise<StateChange[]>;
  /** The history rows of an order after `afterSequence`, in order; empty for an unknown order. */
  getOrderHistorySince(id: string, afterSequence: number): Promise<SequencedStateChange[]>;
}

/** Creating orders and moving them by requests and timers (compare-and-set), and the lookups those moves need. */
export interface OrderMoveStore {
  /** Stores a new order in its first state and records that state, and why, in its history. */
  createOrder(order: OrderRecord, cause: TransitionCause): Promise<void>;
  /**
   * Moves an order only if it is still in `from` (compare-and-set, safe across instances);
   * appends to its history, with the transition's cause. Resolves the sequence number of the history row the
   * move appended, given in the same transaction; undefined when the order had already moved.
   */
  transitionOrder(transition: StateTransition): Promise<number | undefined>;
  /** Orders still in `state` whose expiry is at or before `now`. */
  listOrdersExpiredIn(state: OrderState, now: number): Promise<OrderRecord[]>;
  /** Orders for this payment hash in any of `states`. */
  findOrdersByPaymentHash(paymentHash: string, states: readonly OrderState[]): Promise<OrderRecord[]>;
  countOrdersInStates(states: readonly OrderState[]): Promise<number>;
}

/** What a chain watcher reads and the one transaction it writes per poll. */
export interface ChainWatchStore {
  getChainWatch(chain: ChainKind): Promise<ChainWatchState | undefined>;
  /** The stored observations of these orders, in chain order (height, then position in the block). */
  listChainObservations(chain: ChainKind, orderIds: readonly string[]): Promise<ChainObservation[]>;
  /** Orders of these on-chain tickers in any of `states`, oldest first. */
  listOrdersOfTickersInStates(tickers: readonly string[], states: readonly OrderState[]): Promise<OrderRecord[]>;
  /**
   * Applies a watcher step in one transaction. Resolves the history sequence numbers of its moves, in the
   * order of `step.orders` and their `moves`; undefined, having written nothing, when an order is no
   * longer in its `expectedState` (another writer moved it: the watcher derives again from what is stored).
   */
  applyChainStep(step: ChainStep): Promise<readonly number[] | undefined>;
  setChainViews(chains: ChainViews): Promise<void>;
}

/**
 * The cooperative refunds the winning provider of an order signed (third swap contract): one per slot, the first
 * kept. Those that come with a move are stored by `transitionOrder`, in its transaction.
 */
export interface CooperativeRefundStore {
  /** Stores signatures without moving the order; a slot already signed keeps its first signature. */
  recordCooperativeRefunds(orderId: string, refunds: readonly CooperativeRefundSignature[]): Promise<void>;
  /** The order's signed refunds, by funder (lowercase). */
  listCooperativeRefunds(orderId: string): Promise<CooperativeRefundSignature[]>;
}

/** Liquidity providers: their configuration, presence and credentials. */
export interface ProviderStore {
  /** Inserts or replaces a provider's configuration and active flag. */
  upsertProvider(provider: ProviderRecord): Promise<void>;
  setProviderActive(id: string, active: boolean): Promise<void>;
  addProviderCredential(credential: ProviderCredential): Promise<void>;
  findProviderCredentialByApiKey(apiKey: string): Promise<ProviderCredential | undefined>;
  listProviderCredentials(): Promise<ProviderCredential[]>;
  /** Resolves false when no unrevoked credential has that name. */
  revokeProviderCredential(name: string, at: number): Promise<boolean>;
  /** Binds a lowercase payout address to the unrevoked credential `name`; resolves false when there is none. */
  setProviderPayoutAddress(name: string, ethereumPayoutAddress: string): Promise<boolean>;
}

/** ERC-20 tokens configured while the service runs. */
export interface TokenStore {
  /**
   * Appends a token to the configuration and its market to the offered markets, in one transaction that touches
   * nothing else; refused (throws) for a ticker, a contract on the same network or a market already there.
   */
  addToken(token: TokenAsset, market: string): Promise<void>;
}

/** Token buckets shared by every instance on the database. */
export interface RateLimitStore {
  /**
   * Takes one token from the bucket `key` (`limit.burst` tokens, refilled at `limit.perSecond`), counted across
   * every instance sharing the database. Resolves false when the bucket is empty.
   */
  takeRateLimitToken(key: string, limit: RateLimit): Promise<boolean>;
}

/** Whole-store writes and reads of `lnswap import` and `lnswap export`. */
export interface SnapshotStore {
  /** Runs `work` inside one transaction; commits when it resolves, rolls back when it throws. */
  importAtomically(work: (session: ImportSession) => Promise<void>, options?: StoreImportOptions): Promise<void>;
  /** All orders ordered by createdAt then id, read in batches so a million orders fit in memory. */
  streamOrders(batchSize?: number): AsyncIterable<OrderRecord>;
}

/** Committed changes that caches of reads must hear about, from this process and others. */
export interface StoreChanges {
  readonly changes: ChangeFeed;
}

/**
 * Every role of a store, for the composition root that hands each part the roles it uses, and for tests.
 * Parts take the narrowest roles they need.
 */
export interface Store
  extends
    ConfigurationReadStore,
    OrderReadStore,
    OrderMoveStore,
    ChainWatchStore,
    CooperativeRefundStore,
    ProviderStore,
    TokenStore,
    RateLimitStore,
    SnapshotStore,
    StoreChanges {
  readonly dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

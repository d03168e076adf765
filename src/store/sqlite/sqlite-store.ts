import type { TokenAsset } from '../../domain/market-catalog.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ChainObservation } from '../../domain/chain-observations.js';
import type { ChainKind } from '../../domain/markets.js';
import type { ChainViews, OrderRecord, ProviderCredential, ProviderRecord, StateChange } from '../../domain/order.js';
import { LnswapError } from '../../domain/errors.js';
import type { OrderState } from '../../domain/states.js';
import { KeyedRateLimiter, type RateLimit } from '../../domain/token-bucket.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
import { BatchedReads } from '../batched-reads.js';
import {
  chainViewsFromRows,
  credentialFromRow,
  credentialsFromRows,
  credentialValues,
  providersFromRows,
  tokensFromRows,
  type ChainViewRow,
  type CredentialRow,
  type ProviderMarketRow,
  type ProviderRow,
  type TokenRow,
} from '../configuration-rows.js';
import {
  historyFromRows,
  sequencedHistoryFromRows,
  type HistoryRow,
  type SequencedHistoryRow,
} from '../history-rows.js';
import { ConfigurationCache } from '../configuration-cache.js';
import { orderFromRow, type OrderRow } from '../order-rows.js';
import { streamOrdersInBatches } from '../order-stream.js';
import { openImportSession } from '../import-session.js';
import type {
  ChainStep,
  ChainWatchState,
  ImportSession,
  SequencedStateChange,
  StateTransition,
  Store,
  StoreConfiguration,
  StoreImportOptions,
} from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import { BulkLoad, IMPORT_CACHE_KIB, leaveWalWhileAlone, SERVING_CACHE_KIB, setCacheSize } from './bulk-load.js';
import { SqliteChangeFeed } from './change-feed.js';
import { prepareChainWatch, type SqliteChainWatch } from './chain-watch.js';
import { migrateSqlite } from './migrate.js';
import { prepareStatements, type SqliteStatements } from './statements.js';
import { prepareWrites, type SqliteWrites } from './writes.js';

/** Opens (creating and migrating when new) the SQLite database at `path`, or `:memory:`. */
export function openSqliteStore(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    setCacheSize(db, SERVING_CACHE_KIB);
    migrateSqlite(db);
    return new SqliteStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteStore implements Store {
  readonly dialect = 'sqlite';
  private readonly rateLimiters = new Map<RateLimit, KeyedRateLimiter>();
  readonly changes: SqliteChangeFeed;
  private readonly configuration: ConfigurationCache;
  private readonly statements: SqliteStatements;
  private readonly writes: SqliteWrites;
  private readonly chainWatch: SqliteChainWatch;
  /** Set while an import holds the connection's transaction open; settles (never rejects) when it ends. */
  private runningImport: Promise<void> | undefined;
  /** Runs reads in one read transaction (a savepoint inside an import's). */
  private readonly readTogether: (read: () => OrderRow[]) => OrderRow[];
  private readonly ordersById: BatchedReads<string, OrderRow, OrderRecord | undefined>;
  private readonly ordersByInvoiceHash: BatchedReads<string, OrderRow, OrderRecord[]>;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
    this.writes = prepareWrites(db, this.statements);
    this.chainWatch = prepareChainWatch(db, this.statements, this.writes.transitionOrder, (rows) =>
      this.readOrders(rows),
    );
    this.changes = new SqliteChangeFeed(db);
    this.configuration = new ConfigurationCache(this.changes, async () => this.readConfiguration());
    this.readTogether = db.transaction((read: () => OrderRow[]) => read());
    this.ordersById = new BatchedReads({
      readRows: async (ids) =>
        this.readTogether(() =>
          ids
            .map((id) => this.statements.selectOrder.get(id) as OrderRow | undefined)
            .filter((row) => row !== undefined),
        ),
      keyOf: ([id]) => id,
      answer: ([row]) => (row === undefined ? undefined : orderFromRow(row)),
    });
    this.ordersByInvoiceHash = new BatchedReads({
      readRows: async (invoiceHashes) =>
        this.readTogether(() =>
          invoiceHashes.flatMap((hash) => this.statements.selectOrdersByInvoiceHash.all(hash) as OrderRow[]),
        ),
      keyOf: ([, , , invoiceHash]) => invoiceHash,
      answer: (rows) => rows.map(orderFromRow),
    });
  }

  getConfiguration(): Promise<StoreConfiguration> {
    return this.configuration.get();
  }

  private readConfiguration(): StoreConfiguration {
    const statements = this.statements;
    return {
      markets: statements.selectMarkets.all() as string[],
      chains: chainViewsFromRows(statements.selectChainViews.all() as ChainViewRow[]),
      providers: providersFromRows(
        statements.selectProviders.all() as ProviderRow[],
        statements.selectProviderMarkets.all() as ProviderMarketRow[],
      ),
      tokens: tokensFromRows(statements.selectTokens.all() as TokenRow[]),
    };
  }

  getOrder(id: string): Promise<OrderRecord | undefined> {
    return this.ordersById.load(id);
  }

  async findOrdersByInvoiceHash(invoiceHash: string, onchainTicker?: string): Promise<OrderRecord[]> {
    return onchainTicker === undefined
      ? this.ordersByInvoiceHash.load(invoiceHash)
      : this.readOrders(
          this.statements.selectOrdersByInvoiceHashAndTicker.all(invoiceHash, onchainTicker.toUpperCase()),
        );
  }

  async getOrderHistory(id: string): Promise<StateChange[]> {
    return historyFromRows(this.statements.selectHistory.all(id) as HistoryRow[]);
  }

  // One process serves a SQLite database, so its memory is the whole count.
  async takeRateLimitToken(key: string, limit: RateLimit): Promise<boolean> {
    let limiter = this.rateLimiters.get(limit);
    if (limiter === undefined) {
      limiter = new KeyedRateLimiter(limit);
      this.rateLimiters.set(limit, limiter);
    }
    return limiter.tryTake(key, Date.now());
  }

  async getOrderHistorySince(id: string, afterSequence: number): Promise<SequencedStateChange[]> {
    return sequencedHistoryFromRows(this.statements.selectHistorySince.all(id, afterSequence) as SequencedHistoryRow[]);
  }

  async importAtomically(
    work: (session: ImportSession) => Promise<void>,
    options: StoreImportOptions = {},
  ): Promise<void> {
    if (this.runningImport !== undefined) {
      throw new Error('Another import is already running on this SQLite database');
    }
    let finishImport!: () => void;
    this.runningImport = new Promise((resolve) => {
      finishImport = resolve;
    });
    let bulkLoad: BulkLoad | undefined;
    const { session, end } = openImportSession({
      writeConfiguration: async (configuration) => this.writes.writeConfiguration(configuration),
      writeOrders: async (orders) => bulkLoad!.writeOrders(orders, Date.now()),
      finishOrders: async () => bulkLoad!.finish(),
    });
    const returnToWal = leaveWalWhileAlone(this.db);
    try {
      setCacheSize(this.db, IMPORT_CACHE_KIB);
      this.db.exec('BEGIN IMMEDIATE');
      bulkLoad = new BulkLoad(this.db, this.writes, options);
      await work(session);
      bulkLoad.finish();
      this.db.exec('COMMIT');
      this.changes.report({ kind: 'anything' });
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      if (this.db.open) {
        setCacheSize(this.db, SERVING_CACHE_KIB);
        returnToWal();
      }
      end();
      this.runningImport = undefined;
      finishImport();
    }
  }

  streamOrders(batchSize?: number): AsyncIterable<OrderRecord> {
    return streamOrdersInBatches(
      async (createdAt, id, limit) => this.readOrders(this.statements.selectOrdersAfter.all(createdAt, id, limit)),
      batchSize,
    );
  }

  async createOrder(order: OrderRecord, cause: TransitionCause): Promise<void> {
    await this.importSettled();
    try {
      this.writes.createOrder(order, cause);
    } catch (error) {
      throw isLiveOrderConflict(error) ? new LnswapError('SwapAlreadyInProgress') : error;
    }
    this.changes.report({ kind: 'orderCreated', invoiceHash: order.invoiceHash });
  }

  async transitionOrder(transition: StateTransition): Promise<number | undefined> {
    assertTransitionAllowed(transition);
    await this.importSettled();
    const moved = this.writes.transitionOrder(transition);
    if (moved !== undefined) this.changes.report({ kind: 'orderMoved', orderId: transition.orderId });
    return moved;
  }

  async listOrdersExpiredIn(state: OrderState, now: number): Promise<OrderRecord[]> {
    return this.readOrders(this.statements.selectOrdersExpiredIn.all(state, now));
  }

  async findOrdersByPaymentHash(paymentHash: string, states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.readOrders(this.statements.selectOrdersByPaymentHash.all(paymentHash, JSON.stringify(states)));
  }

  async countOrdersInStates(states: readonly OrderState[]): Promise<number> {
    return this.statements.countOrdersInStates.get(JSON.stringify(states)) as number;
  }

  async setChainViews(chains: ChainViews): Promise<void> {
    await this.importSettled();
    this.writes.upsertChainViews(chains);
    this.changes.report({ kind: 'configuration' });
  }

  async getChainWatch(chain: ChainKind): Promise<ChainWatchState | undefined> {
    return this.chainWatch.getChainWatch(chain);
  }

  async listChainObservations(chain: ChainKind, orderIds: readonly string[]): Promise<ChainObservation[]> {
    return this.chainWatch.listChainObservations(chain, orderIds);
  }

  async listOrdersOfTickersInStates(tickers: readonly string[], states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.chainWatch.listOrdersOfTickersInStates(tickers, states);
  }

  async applyChainStep(step: ChainStep): Promise<readonly number[] | undefined> {
    await this.importSettled();
    const sequences = this.chainWatch.applyChainStep(step);
    if (sequences === undefined) return undefined;
    this.changes.report({ kind: 'configuration' });
    for (const update of step.orders) this.changes.report({ kind: 'orderMoved', orderId: update.orderId });
    return sequences;
  }

  async upsertProvider(provider: ProviderRecord): Promise<void> {
    await this.importSettled();
    this.writes.upsertProvider(provider);
    this.changes.report({ kind: 'configuration' });
  }

  async addToken(token: TokenAsset, market: string): Promise<void> {
    await this.importSettled();
    this.writes.addToken(token, market);
    this.changes.report({ kind: 'configuration' });
  }

  async setProviderActive(id: string, active: boolean): Promise<void> {
    await this.importSettled();
    this.statements.setProviderActive.run(active ? 1 : 0, id);
    this.changes.report({ kind: 'configuration' });
  }

  async addProviderCredential(credential: ProviderCredential): Promise<void> {
    await this.importSettled();
    this.statements.insertCredential.run(...credentialValues(credential));
  }

  async findProviderCredentialByApiKey(apiKey: string): Promise<ProviderCredential | undefined> {
    const row = this.statements.selectCredentialByApiKey.get(apiKey) as CredentialRow | undefined;
    return row === undefined ? undefined : credentialFromRow(row);
  }

  async listProviderCredentials(): Promise<ProviderCredential[]> {
    return credentialsFromRows(this.statements.selectCredentials.all() as CredentialRow[]);
  }

  async revokeProviderCredential(name: string, at: number): Promise<boolean> {
    await this.importSettled();
    return this.statements.revokeCredential.run(at, name).changes === 1;
  }

  async setProviderPayoutAddress(name: string, ethereumPayoutAddress: string): Promise<boolean> {
    await this.importSettled();
    return this.statements.setPayoutAddress.run(ethereumPayoutAddress, name).changes === 1;
  }

  async close(): Promise<void> {
    this.configuration.stop();
    // Lookups asked before close() are read in the next turn, on the connection still open.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.db.open) this.db.close();
  }

  private readOrders(rows: unknown[]): OrderRecord[] {
    return (rows as OrderRow[]).map(orderFromRow);
  }

  /** Writes from outside an import wait for it, so a rollback of the import cannot take them along. */
  private async importSettled(): Promise<void> {
    while (this.runningImport !== undefined) await this.runningImport;
  }
}

/**
 * SQLite names the columns of a violated unique index, not the index; only the live-order index is unique on
 * the payment hash alone, and only a new order in a live state can violate it.
 */
function isLiveOrderConflict(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && message === 'UNIQUE constraint failed: orders.payment_hash';
}

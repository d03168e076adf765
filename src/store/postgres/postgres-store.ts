import type { TokenAsset } from '../../domain/market-catalog.js';
import type pg from 'pg';
import type { ChainObservation } from '../../domain/chain-observations.js';
import type { ChainKind } from '../../domain/markets.js';
import type { ChainViews, OrderRecord, ProviderCredential, ProviderRecord, StateChange } from '../../domain/order.js';
import { LnswapError } from '../../domain/errors.js';
import type { OrderState } from '../../domain/states.js';
import type { RateLimit } from '../../domain/token-bucket.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
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
import { BatchedReads } from '../batched-reads.js';
import type { StoreChange } from '../change-feed.js';
import { ConfigurationCache } from '../configuration-cache.js';
import { openImportSession } from '../import-session.js';
import { orderFromRow, type OrderRow } from '../order-rows.js';
import { streamOrdersInBatches } from '../order-stream.js';
import type {
  ChainStep,
  ChainWatchState,
  ImportSession,
  SequencedStateChange,
  StateTransition,
  Store,
  StoreConfiguration,
} from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import * as chainWatch from './chain-watch.js';
import { changeChannel, notifyChange, PostgresChangeFeed } from './change-feed.js';
import type { PostgresTarget } from './connection-url.js';
import { LIVE_ORDER_INDEX } from '../migrations/live-orders.js';
import { migratePostgres } from './migrate.js';
import { createPool, inTransaction } from './pool.js';
import {
  COUNT_ORDERS_IN_STATES,
  INSERT_CREDENTIAL,
  REVOKE_CREDENTIAL,
  SET_PAYOUT_ADDRESS,
  SELECT_CHAIN_VIEWS,
  SELECT_CREDENTIAL_BY_API_KEY,
  SELECT_CREDENTIALS,
  SELECT_HISTORY,
  SELECT_HISTORY_SINCE,
  TAKE_RATE_LIMIT_TOKEN,
  PRUNE_RATE_LIMIT_BUCKETS,
  SELECT_MARKETS,
  SELECT_ORDERS_AFTER,
  SELECT_ORDERS_BY_IDS,
  SELECT_ORDERS_BY_INVOICE_HASH_AND_TICKER,
  SELECT_ORDERS_BY_INVOICE_HASHES,
  SELECT_ORDERS_BY_PAYMENT_HASH,
  SELECT_ORDERS_EXPIRED_IN,
  SELECT_ORDERS_OF_TICKERS_IN_STATES,
  SELECT_PROVIDER_MARKETS,
  SELECT_TOKENS,
  APPEND_MARKET,
  APPEND_TOKEN,
  SELECT_PROVIDERS,
  SET_PROVIDER_ACTIVE,
  type NamedQuery,
} from './queries.js';
import * as writes from './writes.js';

/** Connects to the target (creating its schema when named) and migrates it. */
export async function openPostgresStore(target: PostgresTarget): Promise<Store> {
  const pool = createPool(target);
  try {
    await migratePostgres(pool, target.schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, new PostgresChangeFeed(target, changeChannel(target)));
}

/** How many rate limit tokens an instance takes between two prunings of the buckets table. */
const RATE_LIMIT_PRUNE_EVERY = 10_000;

class PostgresStore implements Store {
  readonly dialect = 'postgres';
  private rateLimitTakes = 0;
  private readonly configuration: ConfigurationCache;
  private closing: Promise<void> | undefined;
  private readonly ordersById = new BatchedReads<string, OrderRow, OrderRecord | undefined>({
    readRows: (ids) => this.orderRows(SELECT_ORDERS_BY_IDS, [ids]),
    keyOf: ([id]) => id,
    answer: ([row]) => (row === undefined ? undefined : orderFromRow(row)),
  });
  private readonly ordersByInvoiceHash = new BatchedReads<string, OrderRow, OrderRecord[]>({
    readRows: (invoiceHashes) => this.orderRows(SELECT_ORDERS_BY_INVOICE_HASHES, [invoiceHashes]),
    keyOf: ([, , , invoiceHash]) => invoiceHash,
    answer: (rows) => rows.map(orderFromRow),
  });

  constructor(
    private readonly pool: pg.Pool,
    readonly changes: PostgresChangeFeed,
  ) {
    this.configuration = new ConfigurationCache(changes, () => this.readConfiguration());
  }

  getConfiguration(): Promise<StoreConfiguration> {
    return this.configuration.get();
  }

  private async readConfiguration(): Promise<StoreConfiguration> {
    const [markets, chains, providers, providerMarkets, tokens] = await Promise.all([
      this.rows<{ name: string }>(SELECT_MARKETS),
      this.rows<ChainViewRow>(SELECT_CHAIN_VIEWS),
      this.rows<ProviderRow>(SELECT_PROVIDERS),
      this.rows<ProviderMarketRow>(SELECT_PROVIDER_MARKETS),
      this.rows<TokenRow>(SELECT_TOKENS),
    ]);
    return {
      markets: markets.map((row) => row.name),
      chains: chainViewsFromRows(chains),
      providers: providersFromRows(providers, providerMarkets),
      tokens: tokensFromRows(tokens),
    };
  }

  getOrder(id: string): Promise<OrderRecord | undefined> {
    return this.ordersById.load(id);
  }

  async findOrdersByInvoiceHash(invoiceHash: string, onchainTicker?: string): Promise<OrderRecord[]> {
    return onchainTicker === undefined
      ? this.ordersByInvoiceHash.load(invoiceHash)
      : this.orders(SELECT_ORDERS_BY_INVOICE_HASH_AND_TICKER, [invoiceHash, onchainTicker.toUpperCase()]);
  }

  async getOrderHistory(id: string): Promise<StateChange[]> {
    return historyFromRows(await this.rows<HistoryRow>(SELECT_HISTORY, [id]));
  }

  async takeRateLimitToken(key: string, limit: RateLimit): Promise<boolean> {
    this.rateLimitTakes += 1;
    if (this.rateLimitTakes % RATE_LIMIT_PRUNE_EVERY === 0) await this.pool.query(PRUNE_RATE_LIMIT_BUCKETS);
    const taken = await this.pool.query({ ...TAKE_RATE_LIMIT_TOKEN, values: [key, limit.burst, limit.perSecond] });
    return taken.rowCount === 1;
  }

  async getOrderHistorySince(id: string, afterSequence: number): Promise<SequencedStateChange[]> {
    return sequencedHistoryFromRows(await this.rows<SequencedHistoryRow>(SELECT_HISTORY_SINCE, [id, afterSequence]));
  }

  async importAtomically(work: (session: ImportSession) => Promise<void>): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { session, end } = openImportSession({
        writeConfiguration: (configuration) => writes.writeConfiguration(client, configuration),
        writeOrders: (orders) => writes.writeOrders(client, orders, Date.now()),
        finishOrders: async () => {},
      });
      try {
        await work(session);
      } finally {
        end();
      }
      await notifyChange(client, this.changes.channel, { kind: 'anything' });
    });
    this.changes.report({ kind: 'anything' });
    // Until autovacuum catches up, a bulk-loaded table has no statistics and the planner may scan it whole.
    await this.pool.query('ANALYZE orders, order_transactions, order_state_history');
  }

  streamOrders(batchSize?: number): AsyncIterable<OrderRecord> {
    return streamOrdersInBatches(
      (createdAt, id, limit) => this.orders(SELECT_ORDERS_AFTER, [createdAt, id, limit]),
      batchSize,
    );
  }

  async createOrder(order: OrderRecord, cause: TransitionCause): Promise<void> {
    try {
      await this.writeAndNotify({ kind: 'orderCreated', invoiceHash: order.invoiceHash }, (client) =>
        writes.createOrder(client, order, cause),
      );
    } catch (error) {
      throw isLiveOrderConflict(error) ? new LnswapError('SwapAlreadyInProgress') : error;
    }
  }

  async transitionOrder(transition: StateTransition): Promise<number | undefined> {
    assertTransitionAllowed(transition);
    const change: StoreChange = { kind: 'orderMoved', orderId: transition.orderId };
    const sequence = await inTransaction(this.pool, async (client) => {
      const applied = await writes.transitionOrder(client, transition);
      if (applied !== undefined) await notifyChange(client, this.changes.channel, change);
      return applied;
    });
    if (sequence !== undefined) this.changes.report(change);
    return sequence;
  }

  async listOrdersExpiredIn(state: OrderState, now: number): Promise<OrderRecord[]> {
    return this.orders(SELECT_ORDERS_EXPIRED_IN, [state, now]);
  }

  async findOrdersByPaymentHash(paymentHash: string, states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.orders(SELECT_ORDERS_BY_PAYMENT_HASH, [paymentHash, [...states]]);
  }

  async countOrdersInStates(states: readonly OrderState[]): Promise<number> {
    const [row] = await this.rows<{ count: number }>(COUNT_ORDERS_IN_STATES, [[...states]]);
    return row?.count ?? 0;
  }

  async setChainViews(chains: ChainViews): Promise<void> {
    await this.writeAndNotify({ kind: 'configuration' }, (client) => writes.upsertChainViews(client, chains));
  }

  getChainWatch(chain: ChainKind): Promise<ChainWatchState | undefined> {
    return chainWatch.getChainWatch(this.pool, chain);
  }

  listChainObservations(chain: ChainKind, orderIds: readonly string[]): Promise<ChainObservation[]> {
    return chainWatch.listChainObservations(this.pool, chain, orderIds);
  }

  listOrdersOfTickersInStates(tickers: readonly string[], states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.orders(SELECT_ORDERS_OF_TICKERS_IN_STATES, [[...states], [...tickers]]);
  }

  async applyChainStep(step: ChainStep): Promise<readonly number[] | undefined> {
    const applied = await chainWatch.applyChainStep(this.pool, this.changes.channel, step);
    if (applied === undefined) return undefined;
    for (const change of applied.changes) this.changes.report(change);
    return applied.sequences;
  }

  async upsertProvider(provider: ProviderRecord): Promise<void> {
    await this.writeAndNotify({ kind: 'configuration' }, (client) => writes.upsertProvider(client, provider));
  }

  async addToken(token: TokenAsset, market: string): Promise<void> {
    await this.writeAndNotify({ kind: 'configuration' }, async (client) => {
      // Two adds at once would read the same last position: the lock makes the second wait for the first.
      await client.query('LOCK TABLE tokens, markets IN SHARE ROW EXCLUSIVE MODE');
      await client.query({ ...APPEND_TOKEN, values: [token.ticker, token.network, token.address, token.decimals] });
      await client.query({ ...APPEND_MARKET, values: [market] });
    });
  }

  async setProviderActive(id: string, active: boolean): Promise<void> {
    await this.writeAndNotify({ kind: 'configuration' }, async (client) => {
      await client.query({ ...SET_PROVIDER_ACTIVE, values: [active, id] });
    });
  }

  async addProviderCredential(credential: ProviderCredential): Promise<void> {
    await this.pool.query({ ...INSERT_CREDENTIAL, values: credentialValues(credential) });
  }

  async findProviderCredentialByApiKey(apiKey: string): Promise<ProviderCredential | undefined> {
    const [row] = await this.rows<CredentialRow>(SELECT_CREDENTIAL_BY_API_KEY, [apiKey]);
    return row === undefined ? undefined : credentialFromRow(row);
  }

  async listProviderCredentials(): Promise<ProviderCredential[]> {
    return credentialsFromRows(await this.rows<CredentialRow>(SELECT_CREDENTIALS));
  }

  async revokeProviderCredential(name: string, at: number): Promise<boolean> {
    const result = await this.pool.query({ ...REVOKE_CREDENTIAL, values: [at, name] });
    return result.rowCount === 1;
  }

  async setProviderPayoutAddress(name: string, ethereumPayoutAddress: string): Promise<boolean> {
    const result = await this.pool.query({ ...SET_PAYOUT_ADDRESS, values: [ethereumPayoutAddress, name] });
    return result.rowCount === 1;
  }

  close(): Promise<void> {
    this.configuration.stop();
    // Lookups asked before close() send their query in the next turn, which the pool must still take.
    this.closing ??= this.changes
      .close()
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.pool.end());
    return this.closing;
  }

  /** One transaction for the write and its notification, which PostgreSQL sends only if it commits. */
  private async writeAndNotify(change: StoreChange, write: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await write(client);
      await notifyChange(client, this.changes.channel, change);
    });
    this.changes.report(change);
  }

  private async rows<Row extends pg.QueryResultRow>(query: NamedQuery, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>({ ...query, values })).rows;
  }

  private async orders(query: NamedQuery, values: unknown[]): Promise<OrderRecord[]> {
    return (await this.orderRows(query, values)).map(orderFromRow);
  }

  /** Order reads come back as `OrderRow` arrays. */
  private async orderRows(query: NamedQuery, values: unknown[]): Promise<OrderRow[]> {
    return (await this.pool.query<OrderRow>({ ...query, values, rowMode: 'array' })).rows;
  }
}

/** Another instance created a live order for the same payment hash first (unique_violation on the live index). */
function isLiveOrderConflict(error: unknown): boolean {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === LIVE_ORDER_INDEX;
}

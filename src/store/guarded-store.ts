import type { TokenAsset } from '../domain/market-catalog.js';
import type { TransitionCause } from '../domain/transition-cause.js';
import type { ChainViews, OrderRecord, ProviderCredential, ProviderRecord, StateChange } from '../domain/order.js';
import type { OrderState } from '../domain/states.js';
import type { RateLimit } from '../domain/token-bucket.js';
import type { StoreOutage } from './availability.js';
import type { ChangeFeed } from './change-feed.js';
import type { ChainObservation } from '../domain/chain-observations.js';
import type { ChainKind } from '../domain/markets.js';
import type {
  SequencedStateChange,
  ChainStep,
  ChainWatchState,
  ImportSession,
  StateTransition,
  Store,
  StoreConfiguration,
  StoreImportOptions,
} from './store.js';

/**
 * The store as the service uses it: a call that cannot reach the database fails with ServiceUnavailable
 * (and the outage is logged once), any other failure as it was.
 */
export class GuardedStore implements Store {
  readonly dialect: Store['dialect'];
  readonly changes: ChangeFeed;

  constructor(
    private readonly inner: Store,
    private readonly outage: StoreOutage,
  ) {
    this.dialect = inner.dialect;
    this.changes = inner.changes;
  }

  getConfiguration(): Promise<StoreConfiguration> {
    return this.guard(() => this.inner.getConfiguration());
  }

  getOrder(id: string): Promise<OrderRecord | undefined> {
    return this.guard(() => this.inner.getOrder(id));
  }

  findOrdersByInvoiceHash(invoiceHash: string, onchainTicker?: string): Promise<OrderRecord[]> {
    return this.guard(() => this.inner.findOrdersByInvoiceHash(invoiceHash, onchainTicker));
  }

  getOrderHistory(id: string): Promise<StateChange[]> {
    return this.guard(() => this.inner.getOrderHistory(id));
  }

  takeRateLimitToken(key: string, limit: RateLimit): Promise<boolean> {
    return this.guard(() => this.inner.takeRateLimitToken(key, limit));
  }

  getOrderHistorySince(id: string, afterSequence: number): Promise<SequencedStateChange[]> {
    return this.guard(() => this.inner.getOrderHistorySince(id, afterSequence));
  }

  importAtomically(work: (session: ImportSession) => Promise<void>, options?: StoreImportOptions): Promise<void> {
    return this.guard(() => this.inner.importAtomically(work, options));
  }

  streamOrders(batchSize?: number): AsyncIterable<OrderRecord> {
    return this.inner.streamOrders(batchSize);
  }

  createOrder(order: OrderRecord, cause: TransitionCause): Promise<void> {
    return this.guard(() => this.inner.createOrder(order, cause));
  }

  transitionOrder(transition: StateTransition): Promise<number | undefined> {
    return this.guard(() => this.inner.transitionOrder(transition));
  }

  listOrdersExpiredIn(state: OrderState, now: number): Promise<OrderRecord[]> {
    return this.guard(() => this.inner.listOrdersExpiredIn(state, now));
  }

  findOrdersByPaymentHash(paymentHash: string, states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.guard(() => this.inner.findOrdersByPaymentHash(paymentHash, states));
  }

  countOrdersInStates(states: readonly OrderState[]): Promise<number> {
    return this.guard(() => this.inner.countOrdersInStates(states));
  }

  getChainWatch(chain: ChainKind): Promise<ChainWatchState | undefined> {
    return this.guard(() => this.inner.getChainWatch(chain));
  }

  listChainObservations(chain: ChainKind, orderIds: readonly string[]): Promise<ChainObservation[]> {
    return this.guard(() => this.inner.listChainObservations(chain, orderIds));
  }

  listOrdersOfTickersInStates(tickers: readonly string[], states: readonly OrderState[]): Promise<OrderRecord[]> {
    return this.guard(() => this.inner.listOrdersOfTickersInStates(tickers, states));
  }

  applyChainStep(step: ChainStep): Promise<readonly number[] | undefined> {
    return this.guard(() => this.inner.applyChainStep(step));
  }

  setChainViews(chains: ChainViews): Promise<void> {
    return this.guard(() => this.inner.setChainViews(chains));
  }

  upsertProvider(provider: ProviderRecord): Promise<void> {
    return this.guard(() => this.inner.upsertProvider(provider));
  }

  addToken(token: TokenAsset, market: string): Promise<void> {
    return this.guard(() => this.inner.addToken(token, market));
  }

  setProviderActive(id: string, active: boolean): Promise<void> {
    return this.guard(() => this.inner.setProviderActive(id, active));
  }

  addProviderCredential(credential: ProviderCredential): Promise<void> {
    return this.guard(() => this.inner.addProviderCredential(credential));
  }

  findProviderCredentialByApiKey(apiKey: string): Promise<ProviderCredential | undefined> {
    return this.guard(() => this.inner.findProviderCredentialByApiKey(apiKey));
  }

  listProviderCredentials(): Promise<ProviderCredential[]> {
    return this.guard(() => this.inner.listProviderCredentials());
  }

  revokeProviderCredential(name: string, at: number): Promise<boolean> {
    return this.guard(() => this.inner.revokeProviderCredential(name, at));
  }

  setProviderPayoutAddress(name: string, ethereumPayoutAddress: string): Promise<boolean> {
    return this.guard(() => this.inner.setProviderPayoutAddress(name, ethereumPayoutAddress));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async guard<T>(call: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      throw this.outage.translate(error);
    }
    this.outage.answered();
    return result;
  }
}

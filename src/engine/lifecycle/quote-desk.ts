import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { isLnswapError, LnswapError } from '../../domain/errors.js';
import { catalogOf } from '../../domain/market-catalog.js';
import type { ChainViews, OrderRecord } from '../../domain/order.js';
import { refusalOfNewOrder } from '../../domain/orders-per-invoice.js';
import { INITIAL_ORDER_STATE, LIVE_ORDER_STATES, ORDER_STATES } from '../../domain/states.js';
import type { ConfigurationReadStore, OrderMoveStore } from '../../store/store.js';
import { QuoteAuction } from './auction.js';
import { verifyMakerQuote, type QuoteSolicitation, type QuotingProvider, type VerifiedQuote } from './maker-quote.js';
import type { EngineOptions } from '../operations/options.js';
import { checkQuoteRequest, type QuoteRequest } from './quote-request.js';
import type { AuctionEvents } from '../operations/metrics.js';

/** The `requestQuote` payload providers receive. */
export interface ProviderQuoteRequest {
  readonly orderId: string;
  readonly market: string;
  readonly invoice: string;
  readonly refundAddress?: string;
  readonly requestExpiryTimestampMs: number;
}

export interface QuoteDeskDependencies {
  readonly store: ConfigurationReadStore & OrderMoveStore;
  readonly options: EngineOptions;
  readonly now: () => number;
  /** Delivers a quote request to every provider subscribed to its market, on any instance. */
  readonly solicitQuotes: (request: ProviderQuoteRequest) => void;
  /** Told of every quote request, maker quote and auction outcome, for metrics. */
  readonly events?: AuctionEvents;
}

/**
 * Turns a user's quote request into an order: validates it, asks the providers, waits until the
 * deadline for their quotes and stores the best one as an order waiting for funds.
 */
export class QuoteDesk {
  private readonly auctions = new Map<string, QuoteAuction>();
  /** Payment hashes with an auction running here; the store cannot see those yet. */
  private readonly paymentHashesInAuction = new Set<string>();
  private readonly shutdown = new AbortController();

  constructor(private readonly dependencies: QuoteDeskDependencies) {
    // Each auction under way waits on this signal, and maxSwapsInFlight bounds how many run: Node's leak warning
    // at the 11th listener would be a false alarm on every instance that runs more than ten auctions at once.
    setMaxListeners(dependencies.options.maxSwapsInFlight, this.shutdown.signal);
  }

  /**
   * Resolves with the stored order; throws LnswapError when refused. `requestId` names the user's request in
   * the new order's history.
   */
  async requestQuote(payload: unknown, requestId?: string): Promise<OrderRecord> {
    const { events } = this.dependencies;
    events?.quoteRequested();
    try {
      return await this.quote(payload, requestId);
    } catch (error) {
      if (isLnswapError(error)) events?.quoteRequestRefused(error.token);
      throw error;
    }
  }

  private async quote(payload: unknown, requestId?: string): Promise<OrderRecord> {
    const { store, now } = this.dependencies;
    const configuration = await store.getConfiguration();
    const request = checkQuoteRequest(payload, {
      catalog: catalogOf(configuration),
      offeredMarkets: configuration.markets,
      providers: configuration.providers,
      now: now(),
    });

    const [earlierOrders, storedInFlight] = await Promise.all([
      store.findOrdersByPaymentHash(request.paymentHash, ORDER_STATES),
      store.countOrdersInStates(LIVE_ORDER_STATES),
    ]);
    // Before the auction, so that no provider is asked for a quote the store would refuse (it decides again when
    // the order is written, in one transaction, whichever instance asks).
    const refusal = refusalOfNewOrder(
      INITIAL_ORDER_STATE,
      earlierOrders.map((order) => order.state),
    );
    if (refusal !== undefined) throw new LnswapError(refusal);
    // From here to the reservation nothing awaits, so concurrent requests see each other's reservations.
    if (this.paymentHashesInAuction.has(request.paymentHash)) throw new LnswapError('SwapAlreadyInProgress');
    if (storedInFlight + this.paymentHashesInAuction.size >= this.dependencies.options.maxSwapsInFlight) {
      throw new LnswapError('TooManySwapsInFlight');
    }
    this.paymentHashesInAuction.add(request.paymentHash);
    try {
      return await this.runAuction(request, configuration.chains, requestId);
    } finally {
      this.paymentHashesInAuction.delete(request.paymentHash);
    }
  }

  /** True while this instance runs the auction of `orderId`. */
  runsAuction(orderId: string): boolean {
    return this.auctions.has(orderId);
  }

  /** Throws LnswapError when the quote is refused, QuoteSubmittedTooLate when no auction runs here. */
  submitMakerQuote(orderId: string, payload: unknown, receivedAt: number, provider: QuotingProvider): void {
    const auction = this.auctions.get(orderId);
    const { events } = this.dependencies;
    try {
      if (auction === undefined) throw new LnswapError('QuoteSubmittedTooLate');
      auction.submit(payload, receivedAt, provider);
    } catch (error) {
      events?.makerQuoteReceived(false);
      throw error;
    }
    events?.makerQuoteReceived(true);
  }

  /** Abandons the auctions in progress; their requests fail. */
  close(): void {
    this.shutdown.abort();
  }

  private async runAuction(request: QuoteRequest, chains: ChainViews, requestId?: string): Promise<OrderRecord> {
    const { store, now, options } = this.dependencies;
    const orderId = randomUUID();
    const requestExpiryTimestampMs = now() + options.quoteDeadlineMs;
    const refundAddress = request.refundAddress === undefined ? {} : { refundAddress: request.refundAddress };
    const solicitation: QuoteSolicitation = {
      orderId,
      market: request.market,
      paymentHash: request.paymentHash,
      ...refundAddress,
      requestExpiryTimestampMs,
      chains,
    };
    const auction = new QuoteAuction((quote, receivedAt, provider) =>
      verifyMakerQuote(quote, solicitation, options, receivedAt, provider),
    );

    this.auctions.set(orderId, auction);
    try {
      this.dependencies.solicitQuotes({
        orderId,
        market: request.market.name,
        invoice: request.invoice,
        ...refundAddress,
        requestExpiryTimestampMs,
      });
      await sleep(Math.max(0, requestExpiryTimestampMs - now()), undefined, { signal: this.shutdown.signal });
      const best = auction.close();
      if (best === undefined) {
        this.dependencies.events?.auctionClosed(request.market.name, 'none');
        throw new LnswapError('NoQuotesAvailable');
      }
      const order = orderFromQuote(orderId, request, best, now());
      await store.createOrder(order, {
        source: 'request',
        reason: 'requestQuote',
        ...(requestId === undefined ? {} : { requestId }),
      });
      this.dependencies.events?.auctionClosed(request.market.name, 'won');
      return order;
    } finally {
      auction.close();
      this.auctions.delete(orderId);
    }
  }
}

function orderFromQuote(orderId: string, request: QuoteRequest, quote: VerifiedQuote, createdAt: number): OrderRecord {
  return {
    id: orderId,
    market: request.market.name,
    invoice: request.invoice,
    invoiceHash: request.invoiceHash,
    paymentHash: request.paymentHash,
    createdAt,
    expiresAt: quote.expiresAt,
    state: INITIAL_ORDER_STATE,
    amount: quote.amount,
    payToAddress: quote.payToAddress,
    ...(request.refundAddress === undefined ? {} : { refundAddress: request.refundAddress }),
    htlc: quote.htlc,
    transactions: [],
    providerId: quote.providerId,
    ...(quote.claimAddress === undefined ? {} : { claimAddress: quote.claimAddress }),
  };
}

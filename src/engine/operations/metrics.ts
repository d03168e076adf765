/**
 * What the service counts for Prometheus (docs/operations.md). Events on the hot paths are counted in plain
 * numbers and turned into samples when scraped; what the store knows is read at scrape time, and what the nodes
 * said is the watchers' last reading (a scrape never calls a node).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Registry } from 'prom-client';
import { ORDER_STATES, type OrderState } from '../../domain/states.js';
import type { ConfigurationReadStore, OrderMoveStore } from '../../store/store.js';
import type { ChainHealthReading } from '../chain-following/chain-health.js';
import type { ChainProgress } from './readiness.js';

/** What the quote desk tells about auctions. */
export interface AuctionEvents {
  quoteRequested(): void;
  /** A user's quote request refused before or instead of an auction, with its token. */
  quoteRequestRefused(token: string): void;
  makerQuoteReceived(accepted: boolean): void;
  /** The deadline passed: `won` with a winning quote, `none` without one. */
  auctionClosed(market: string, outcome: 'won' | 'none'): void;
}

export interface OrderMoveEvents {
  orderMoved(to: OrderState): void;
}

export interface ScrapeSources {
  readonly store: ConfigurationReadStore & OrderMoveStore;
  /** Each followed chain's tip and processed height. */
  readonly chainProgress?: () => Promise<ChainProgress[]>;
  /** What the watchers last heard from each followed chain's node. */
  readonly chainHealth?: () => readonly ChainHealthReading[];
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const NANOSECONDS_PER_SECOND = 1e9;

export class ServiceMetrics implements AuctionEvents, OrderMoveEvents {
  readonly registry = new Registry();
  private readonly eventLoop: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private readonly quoteRequests: Counter;
  private readonly quoteRequestsRefused: Counter<'token'>;
  private readonly makerQuotes: Counter<'result'>;
  private readonly auctions: Counter<'market' | 'outcome'>;
  private readonly moves: Counter<'state'>;

  constructor(sources: ScrapeSources) {
    const registers = [this.registry];
    this.quoteRequests = new Counter({
      name: 'lnswap_quote_requests_total',
      help: 'Quote requests from users',
      registers,
    });
    this.quoteRequestsRefused = new Counter({
      name: 'lnswap_quote_requests_refused_total',
      help: 'Quote requests refused, by error token (NoQuotesAvailable: an auction without a valid quote)',
      labelNames: ['token'],
      registers,
    });
    this.makerQuotes = new Counter({
      name: 'lnswap_maker_quotes_total',
      help: 'Maker quotes received, accepted into an auction or refused',
      labelNames: ['result'],
      registers,
    });
    this.auctions = new Counter({
      name: 'lnswap_auctions_total',
      help: 'Auctions closed, by market and outcome (won: a quote became an order; none: no valid quote)',
      labelNames: ['market', 'outcome'],
      registers,
    });
    this.moves = new Counter({
      name: 'lnswap_order_transitions_total',
      help: 'Order state transitions made by this instance, by the state entered',
      labelNames: ['state'],
      registers,
    });
    registerStoreGauges(this.registry, sources.store);
    if (sources.chainProgress !== undefined) registerChainGauges(this.registry, sources.chainProgress);
    if (sources.chainHealth !== undefined) registerNodeHealth(this.registry, sources.chainHealth);
    this.registerEventLoopGauge();
    this.eventLoop.enable();
  }

  quoteRequested(): void {
    this.quoteRequests.inc();
  }

  quoteRequestRefused(token: string): void {
    this.quoteRequestsRefused.inc({ token });
  }

  makerQuoteReceived(accepted: boolean): void {
    this.makerQuotes.inc({ result: accepted ? 'accepted' : 'refused' });
  }

  auctionClosed(market: string, outcome: 'won' | 'none'): void {
    this.auctions.inc({ market, outcome });
  }

  orderMoved(to: OrderState): void {
    this.moves.inc({ state: to });
  }

  /** The exposition in Prometheus' text format. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  stop(): void {
    this.eventLoop.disable();
  }

  private registerEventLoopGauge(): void {
    const eventLoop = this.eventLoop;
    new Gauge({
      name: 'lnswap_event_loop_lag_seconds',
      help: 'Event loop delay since the previous scrape: p50, p99 and max',
      labelNames: ['quantile'],
      registers: [this.registry],
      collect() {
        this.set({ quantile: '0.5' }, eventLoop.percentile(50) / NANOSECONDS_PER_SECOND);
        this.set({ quantile: '0.99' }, eventLoop.percentile(99) / NANOSECONDS_PER_SECOND);
        this.set({ quantile: 'max' }, eventLoop.max / NANOSECONDS_PER_SECOND);
        eventLoop.reset();
      },
    });
  }
}

/**
 * What the store says, or undefined while it does not answer: a scrape during a database outage still
 * shows everything else (the outage itself is `/readyz`'s and the HTTP 503 counts' to tell).
 */
async function whileStoreAnswers<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch {
    return undefined;
  }
}

function registerStoreGauges(registry: Registry, store: ConfigurationReadStore & OrderMoveStore): void {
  new Gauge({
    name: 'lnswap_orders',
    help: 'Orders in the store, by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await whileStoreAnswers(
        Promise.all(ORDER_STATES.map((state) => store.countOrdersInStates([state]))),
      );
      if (counts === undefined) return;
      ORDER_STATES.forEach((state, index) => this.set({ state }, counts[index] ?? 0));
    },
  });
  new Gauge({
    name: 'lnswap_providers_connected',
    help: 'Providers connected and configured for each offered market (of every instance)',
    labelNames: ['market'],
    registers: [registry],
    async collect() {
      this.reset();
      const configuration = await whileStoreAnswers(store.getConfiguration());
      if (configuration === undefined) return;
      const { markets, providers } = configuration;
      for (const market of markets) {
        const serving = providers.filter((provider) => provider.active && Object.hasOwn(provider.markets, market));
        this.set({ market }, serving.length);
      }
    },
  });
}

/** Read from the watchers' state: a scrape never calls a node. */
function registerNodeHealth(registry: Registry, chainHealth: () => readonly ChainHealthReading[]): void {
  new Gauge({
    name: 'lnswap_chain_node_up',
    help: "1 when the followed chain's node answered its last poll, 0 when that poll failed",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const reading of chainHealth()) {
        if (reading.polledAt !== undefined) this.set({ chain: reading.chain }, reading.fault === undefined ? 1 : 0);
      }
    },
  });
  new Counter({
    name: 'lnswap_chain_node_faults_total',
    help: 'Failed polls of a followed chain node, by fault (timeout, unreachable, refused, tooLarge, badAnswer, unstable)',
    labelNames: ['chain', 'fault'],
    registers: [registry],
    collect() {
      this.reset();
      for (const reading of chainHealth()) {
        for (const [fault, count] of Object.entries(reading.faultCounts))
          this.inc({ chain: reading.chain, fault }, count);
      }
    },
  });
  new Gauge({
    name: 'lnswap_chain_mempool_listed',
    help: "1 when the chain's node listed its mempool at the watcher's last try, 0 when it could not (payments are then seen when mined)",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { chain, mempool } of chainHealth()) {
        if (mempool !== undefined) this.set({ chain }, mempool.listed ? 1 : 0);
      }
    },
  });
  new Counter({
    name: 'lnswap_chain_mempool_misses_total',
    help: "Mempool listings the chain's node failed to give the watcher",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { chain, mempool } of chainHealth()) {
        if (mempool !== undefined) this.inc({ chain }, mempool.misses);
      }
    },
  });
}

function registerChainGauges(registry: Registry, chainProgress: () => Promise<ChainProgress[]>): void {
  // One read of the store's cursors serves both gauges of a scrape.
  let reading: Promise<ChainProgress[]> | undefined;
  const progress = (): Promise<ChainProgress[]> => {
    reading ??= chainProgress().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: 'lnswap_chain_tip_height',
    help: "The node's tip height, per followed chain",
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const chain of await progress()) this.set({ chain: chain.chain }, chain.tipHeight);
    },
  });
  new Gauge({
    name: 'lnswap_chain_watcher_lag_blocks',
    help: "Blocks between the node's tip and the last block the watcher processed, per followed chain",
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const chain of await progress()) {
        if (chain.processedHeight !== undefined)
          this.set({ chain: chain.chain }, chain.tipHeight - chain.processedHeight);
      }
    },
  });
}

import type { Logger } from 'pino';
import type { ConfigurationReadStore, OrderMoveStore, OrderReadStore } from '../store/store.js';
import { BlockHeightTracker, type BlockHeightChange } from './chain-following/block-height-tracker.js';
import { sweepElapsedFundWindows } from './lifecycle/fund-window-sweeper.js';
import type { AuctionEvents, OrderMoveEvents } from './operations/metrics.js';
import type { EngineOptions } from './operations/options.js';
import { OrderTransitions, type StateChangedPublisher } from './lifecycle/order-transitions.js';
import { startPeriodicTask, upkeepFailed, type PeriodicTask } from './operations/periodic-task.js';
import { QuoteDesk, type QuoteDeskDependencies } from './lifecycle/quote-desk.js';

/** How the engine's parts reach the clients; the socket.io server provides them. */
export interface EngineOutlets {
  /** Asks the providers quoting a market for a quote. */
  readonly solicitQuotes: QuoteDeskDependencies['solicitQuotes'];
  /** Tells the users following an order that it moved. */
  readonly publish: StateChangedPublisher;
  /** Tells the users following a chain's block height that it changed. */
  readonly announceBlockHeight: (change: BlockHeightChange) => void;
}

export interface EngineDependencies {
  readonly store: ConfigurationReadStore & OrderMoveStore & OrderReadStore;
  readonly options: EngineOptions;
  readonly outlets: EngineOutlets;
  readonly now: () => number;
  readonly logger: Logger;
  /** Told of auctions and of every order move this instance makes, for metrics. */
  readonly events?: AuctionEvents & OrderMoveEvents;
}

/** The order lifecycle's parts, each built once: the composition root hands them to the transports. */
export interface Engine {
  /** The one way requests and timers move orders; its `publish` also tells of the chain watchers' moves. */
  readonly transitions: OrderTransitions;
  /** Turns quote requests into auctions and auctions into orders. */
  readonly desk: QuoteDesk;
  /** Ends running auctions and stops the upkeep. */
  close(): Promise<void>;
}

/**
 * Builds the engine's parts and starts their upkeep: the fund-window sweep and the chain-view poll, each
 * safe to run on several instances at once.
 */
export function buildEngine(dependencies: EngineDependencies): Engine {
  const { store, options, outlets, now, logger, events } = dependencies;
  const transitions = new OrderTransitions(store, (event) => {
    events?.orderMoved(event.state);
    outlets.publish(event);
  });
  const desk = new QuoteDesk({
    store,
    options,
    now,
    solicitQuotes: outlets.solicitQuotes,
    ...(events === undefined ? {} : { events }),
  });
  const heights = new BlockHeightTracker();
  const tasks: PeriodicTask[] = [
    startPeriodicTask(
      (signal) => sweepElapsedFundWindows(store, transitions, now(), { signal, graceMs: options.fundWindowGraceMs }),
      {
        intervalMs: options.sweepIntervalMs,
        onError: upkeepFailed(logger, 'fund window sweep'),
      },
    ),
    startPeriodicTask(
      async () => {
        const { chains } = await store.getConfiguration();
        for (const change of heights.update(chains)) outlets.announceBlockHeight(change);
      },
      { intervalMs: options.chainViewPollIntervalMs, onError: upkeepFailed(logger, 'chain view poll') },
    ),
  ];
  return {
    transitions,
    desk,
    async close() {
      desk.close();
      await Promise.all(tasks.map((task) => task.stop()));
    },
  };
}

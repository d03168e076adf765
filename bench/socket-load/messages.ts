/** What the bench's processes tell each other over their IPC channels. */
import type { ChainKind } from '../../src/domain/markets.js';

export interface ProviderKeysMessage {
  readonly name: string;
  readonly apiKey: string;
  readonly secretKey: string;
}

/** An order the mover keeps moving, with the chain its funding is seen on. */
export interface MovingOrder {
  readonly orderId: string;
  readonly chain: ChainKind;
}

/** The instance is serving at `url`; the providers' credentials were issued into its store. */
export interface InstanceReady {
  readonly type: 'ready';
  readonly url: string;
  readonly providers: readonly ProviderKeysMessage[];
}

/** Moves every order once per second, each at its own offset within the second, for `seconds`. */
export interface StartMoving {
  readonly type: 'move';
  readonly orders: readonly MovingOrder[];
  readonly seconds: number;
}

/**
 * When each move committed: flat triples, orderId, history sequence and the time the store's commit returned
 * (milliseconds, `performance.timeOrigin + performance.now()`).
 */
export interface MovesDone {
  readonly type: 'moved';
  readonly commits: readonly (string | number)[];
  readonly applied: number;
  /** Moves that were due while the order's previous move had not committed yet, and were skipped. */
  readonly skipped: number;
  /** Moves refused by the store (the order was not where the mover left it): must be 0. */
  readonly refused: number;
}

export type InstanceMessage = InstanceReady | MovesDone;

/** The subscribers' process: connected and subscribed, or its receipts. */
export type SubscriberMessage =
  | { readonly type: 'subscribed'; readonly count: number; readonly refusals: readonly string[] }
  | {
      readonly type: 'received';
      /** Flat triples: orderId, sequence, receipt time (same clock as the commits). */
      readonly receipts: readonly (string | number)[];
      /** The process's own event-loop delay, p99 in ms: high means the load process, not the server, was late. */
      readonly eventLoopDelayP99Ms: number;
      readonly disconnects: number;
    };

/** The wall clock with sub-millisecond resolution, comparable between processes on one machine. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

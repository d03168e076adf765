/**
 * One object for a wallet: every read of the HTTP API and every `/user/v1` request of the service. The socket
 * opens on the first request that needs it, so a client that only reads never connects one.
 */
import type { OrderState } from '../domain/states.js';
import type { StateChangedView } from '../wire/response-shapes.js';
import { httpReads, type HttpReads } from './http-reads.js';
import { ServiceTimeout } from './service-refusal.js';
import { connectUserSocket, type UserSocket } from './user-socket.js';

export interface LnswapClientOptions {
  /** The service's base URL: `https://lnswap.example`. */
  url: string;
  /** Bounds each HTTP read and each acknowledgement; 10 s by default. */
  timeoutMs?: number;
  /** Bounds the wait for a quote; 35 s by default, past the service's own 30 s bound on a request. */
  quoteTimeoutMs?: number;
  /** socket.io transports, in the order tried; WebSocket first, then long-polling, by default. */
  transports?: ('websocket' | 'polling')[];
  /** Told of what cannot be thrown to a caller: a subscription refused on renewal, an event of another shape. */
  onError?: (error: Error) => void;
}

export interface WaitForStateOptions {
  /** Gives up with `ServiceTimeout` after this long; never by default. */
  timeoutMs?: number;
  /** Told of every state on the way, the awaited one included. */
  onState?: (change: StateChangedView) => void;
}

/** The whole user protocol: HTTP reads, socket.io requests and subscriptions, and waiting for a state. */
export interface LnswapClient extends HttpReads, Omit<UserSocket, 'socket' | 'connected' | 'close'> {
  /**
   * Follows the order from its first state until one of `states` (replayed or live), which it resolves with;
   * rejects with `ServiceTimeout` after `timeoutMs`. The subscription ends either way.
   */
  waitForState(
    orderId: string,
    states: readonly OrderState[],
    options?: WaitForStateOptions,
  ): Promise<StateChangedView>;
  /** The `/user/v1` socket, opened on first use. */
  userSocket(): UserSocket;
  /** Closes the socket, if one was opened. */
  close(): void;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_QUOTE_TIMEOUT_MS = 35_000;

export function createLnswapClient(options: LnswapClientOptions): LnswapClient {
  const serviceUrl = options.url.replace(/\/+$/u, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const reads = httpReads({ serviceUrl, timeoutMs });
  let socket: UserSocket | undefined;
  const userSocket = (): UserSocket => {
    socket ??= connectUserSocket({
      serviceUrl,
      ackTimeoutMs: timeoutMs,
      quoteTimeoutMs: options.quoteTimeoutMs ?? DEFAULT_QUOTE_TIMEOUT_MS,
      ...(options.transports === undefined ? {} : { transports: options.transports }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
    return socket;
  };
  return {
    ...reads,
    requestQuote: (request) => userSocket().requestQuote(request),
    requestMarketRequirements: () => userSocket().requestMarketRequirements(),
    requestRefundDetails: (orderId, funder) => userSocket().requestRefundDetails(orderId, funder),
    requestCancel: (orderId, funder, signature) => userSocket().requestCancel(orderId, funder, signature),
    broadcastTransaction: (onchainTicker, signedTxHex) => userSocket().broadcastTransaction(onchainTicker, signedTxHex),
    subscribeToOrderState: (orderId, onState, subscription) =>
      userSocket().subscribeToOrderState(orderId, onState, subscription),
    subscribeToBlockHeight: (topic, onHeight) => userSocket().subscribeToBlockHeight(topic, onHeight),
    waitForState: (orderId, states, waiting = {}) => waitForState(userSocket(), orderId, states, waiting),
    userSocket,
    close: () => socket?.close(),
  };
}

async function waitForState(
  socket: UserSocket,
  orderId: string,
  states: readonly OrderState[],
  options: WaitForStateOptions,
): Promise<StateChangedView> {
  let settle: (change: StateChangedView) => void = () => {};
  const reached = new Promise<StateChangedView>((resolve) => {
    settle = resolve;
  });
  const subscription = await socket.subscribeToOrderState(orderId, (change) => {
    options.onState?.(change);
    if (states.includes(change.state)) settle(change);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    if (options.timeoutMs === undefined) return;
    const waited = options.timeoutMs;
    timer = setTimeout(() => reject(new ServiceTimeout(`waiting for ${states.join(' or ')}`, waited)), waited);
  });
  try {
    return await Promise.race([reached, timedOut]);
  } finally {
    clearTimeout(timer);
    await subscription.unsubscribe().catch(() => undefined);
  }
}

/**
 * The service's `/user/v1` socket.io namespace (docs/websocket.md) as typed calls. Every request waits for its
 * acknowledgement with a timeout; a refusal throws `ServiceRefusal` with the service's token, an answer of another
 * shape `ServiceAnswerUnreadable`. Order-state subscriptions keep the last `sequence` seen and subscribe again
 * with it as `sinceSequence` after every reconnect, so the service replays what was missed: no state is lost
 * and none is delivered twice. Block-height subscriptions are renewed on reconnect as well.
 */
import { io, type Socket } from 'socket.io-client';
import {
  blockHeightChangedShape,
  fundingDetailsShape,
  marketRequirementsShape,
  refundShape,
  stateChangedShape,
  type BlockHeightChangedView,
  type FundingDetailsView,
  type MarketRequirementsView,
  type RefundView,
  type StateChangedView,
} from '../wire/response-shapes.js';
import { readAck, readBroadcastAnswer } from './acks.js';
import { readShape } from './read-shape.js';
import { ServiceRefusal, ServiceTimeout } from './service-refusal.js';

export interface UserSocketOptions {
  /** The service's base URL; `/user/v1` is appended. */
  serviceUrl: string;
  /** Bounds the wait for each acknowledgement but `requestQuote`'s. */
  ackTimeoutMs: number;
  /** Bounds the wait for a quote: the service answers after its quote deadline (3 s by default). */
  quoteTimeoutMs: number;
  /** socket.io transports, in the order tried; WebSocket first, then long-polling, by default. */
  transports?: ('websocket' | 'polling')[];
  /**
   * Told of what cannot be thrown to a caller: a failed connection attempt, a renewal refused after a reconnect, an
   * event of another shape.
   */
  onError?: (error: Error) => void;
}

/** `requestQuote`'s payload: the market, the BOLT11 invoice, and for a Bitcoin market the refund address. */
export interface QuoteRequest {
  market: string;
  invoice: string;
  refundAddress?: string;
}

/** A chain the service follows: `bitcoin` or `ethereum`, and `mainnet`, `testnet` or `simnet`. */
export interface BlockHeightTopic {
  network: string;
  subnet: string;
}

export interface OrderStateSubscriptionOptions {
  /**
   * The last sequence the caller already has: the service replays every state after it. 0 (the default) replays
   * the order's whole history, so the callback sees the current state first.
   */
  sinceSequence?: number;
}

/** An order-state subscription; renewed after each reconnect from `lastSequence`. */
export interface OrderStateSubscription {
  readonly orderId: string;
  /** The sequence of the last state delivered. */
  readonly lastSequence: number;
  unsubscribe(): Promise<void>;
}

export interface BlockHeightSubscription {
  readonly topic: BlockHeightTopic;
  unsubscribe(): Promise<void>;
}

export interface UserSocket {
  /** `requestQuote`: the order's funding details, what `GET /api/orders/:id/fundDetails` answers afterwards. */
  requestQuote(request: QuoteRequest): Promise<FundingDetailsView>;
  /** `requestMarketRequirements`: as `GET /api/markets/requirements`. */
  requestMarketRequirements(): Promise<MarketRequirementsView[]>;
  /**
   * `requestCancel`: asks the winning provider to give up an Ethereum order (docs/websocket.md); `signature` is the
   * funder's signature of `cancelOrderTypedData`. Resolves once the refunds are signed away (the refund details then
   * answer `CooperativeRefund`); rejects with `ServiceRefusal` `PaymentInProgress` when a payment is under way.
   */
  requestCancel(orderId: string, funder: string, signature: string): Promise<void>;
  /** `requestRefundDetails`: as `GET /api/orders/:id/refund[?funder=]`. */
  requestRefundDetails(orderId: string, funder?: string): Promise<RefundView>;
  /** `broadcastTransaction`: sends a signed transaction (hex) to the network of `onchainTicker`; its id. */
  broadcastTransaction(onchainTicker: string, signedTxHex: string): Promise<string>;
  /** `subscribeToOrderState`: `onState` gets each state after `sinceSequence` once, in order, across reconnects. */
  subscribeToOrderState(
    orderId: string,
    onState: (change: StateChangedView) => void,
    options?: OrderStateSubscriptionOptions,
  ): Promise<OrderStateSubscription>;
  /** `subscribeToBlockHeight`: `onHeight` gets each change of the service's view of that chain. */
  subscribeToBlockHeight(
    topic: BlockHeightTopic,
    onHeight: (change: BlockHeightChangedView) => void,
  ): Promise<BlockHeightSubscription>;
  /** Whether the socket is connected now; requests made while it is not are sent once it is (or time out). */
  readonly connected: boolean;
  /** The socket.io socket underneath, for what this interface does not cover (connection events). */
  readonly socket: Socket;
  close(): void;
}

interface OrderWatch {
  lastSequence: number;
  readonly onState: (change: StateChangedView) => void;
}

interface HeightWatch {
  readonly topic: BlockHeightTopic;
  readonly onHeight: (change: BlockHeightChangedView) => void;
}

export function connectUserSocket(options: UserSocketOptions): UserSocket {
  const socket = io(`${options.serviceUrl}/user/v1`, {
    transports: options.transports ?? ['websocket', 'polling'],
    forceNew: true,
  });
  const reportError = (error: Error) => options.onError?.(error);
  const orders = new Map<string, OrderWatch>();
  const heights = new Set<HeightWatch>();

  const ask = async (event: string, payload: unknown, timeoutMs = options.ackTimeoutMs): Promise<unknown> => {
    let answer: unknown;
    try {
      answer = await socket.timeout(timeoutMs).emitWithAck(event, payload);
    } catch {
      throw new ServiceTimeout(event, timeoutMs);
    }
    const ack = readAck(answer, event);
    if (!ack.success) throw new ServiceRefusal(ack.message, event);
    return ack.message;
  };

  // A refused connection (`TooManyConnections`) or an unreachable service: requests wait for the next attempt.
  socket.on('connect_error', reportError);
  socket.on('stateChanged', (payload: unknown) => {
    let change: StateChangedView;
    try {
      change = readShape<StateChangedView>(stateChangedShape, payload, 'a stateChanged event');
    } catch (error) {
      reportError(error as Error);
      return;
    }
    const watch = orders.get(change.orderId);
    // A state at or below the last one delivered is a replay the client already has (a renewal raced a live event).
    if (watch === undefined || change.sequence <= watch.lastSequence) return;
    watch.lastSequence = change.sequence;
    watch.onState(change);
  });

  socket.on('blockHeightChanged', (payload: unknown) => {
    let change: BlockHeightChangedView;
    try {
      change = readShape<BlockHeightChangedView>(blockHeightChangedShape, payload, 'a blockHeightChanged event');
    } catch (error) {
      reportError(error as Error);
      return;
    }
    for (const watch of heights) {
      if (watch.topic.network.toLowerCase() === change.network && watch.topic.subnet.toLowerCase() === change.subnet) {
        watch.onHeight(change);
      }
    }
  });

  let connectedOnce = false;
  socket.on('connect', () => {
    if (!connectedOnce) {
      connectedOnce = true;
      return;
    }
    for (const [orderId, watch] of orders) {
      ask('subscribeToOrderState', { orderId, sinceSequence: watch.lastSequence }).catch(reportError);
    }
    for (const watch of heights) ask('subscribeToBlockHeight', watch.topic).catch(reportError);
  });

  return {
    requestQuote: async (request) =>
      readShape<FundingDetailsView>(
        fundingDetailsShape,
        await ask('requestQuote', request, options.quoteTimeoutMs),
        'the requestQuote answer',
      ),
    requestMarketRequirements: async () =>
      readShape<MarketRequirementsView[]>(
        { type: 'array', items: marketRequirementsShape },
        await ask('requestMarketRequirements', null),
        'the requestMarketRequirements answer',
      ),
    requestRefundDetails: async (orderId, funder) =>
      readShape<RefundView>(
        refundShape,
        await ask('requestRefundDetails', funder === undefined ? { orderId } : { orderId, funder }),
        'the requestRefundDetails answer',
      ),
    requestCancel: async (orderId, funder, signature) => {
      await ask('requestCancel', { orderId, funder, signature });
    },
    broadcastTransaction: async (onchainTicker, signedTxHex) =>
      readBroadcastAnswer(await ask('broadcastTransaction', { onchainTicker, signedTxHex })).txId,
    async subscribeToOrderState(orderId, onState, subscription = {}) {
      const watch: OrderWatch = { lastSequence: subscription.sinceSequence ?? 0, onState };
      orders.set(orderId, watch);
      try {
        await ask('subscribeToOrderState', { orderId, sinceSequence: watch.lastSequence });
      } catch (error) {
        if (orders.get(orderId) === watch) orders.delete(orderId);
        throw error;
      }
      return {
        orderId,
        get lastSequence() {
          return watch.lastSequence;
        },
        async unsubscribe() {
          if (orders.get(orderId) === watch) orders.delete(orderId);
          await ask('unsubscribeFromOrderState', { orderId });
        },
      };
    },
    async subscribeToBlockHeight(topic, onHeight) {
      const watch: HeightWatch = { topic: { ...topic }, onHeight };
      heights.add(watch);
      try {
        await ask('subscribeToBlockHeight', watch.topic);
      } catch (error) {
        heights.delete(watch);
        throw error;
      }
      return {
        topic: watch.topic,
        async unsubscribe() {
          heights.delete(watch);
          await ask('unsubscribeFromBlockHeight', watch.topic);
        },
      };
    },
    get connected() {
      return socket.connected;
    },
    socket,
    close: () => socket.close(),
  };
}

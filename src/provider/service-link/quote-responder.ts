import { io, type Socket } from 'socket.io-client';
import { readAck } from '../../client/acks.js';
import { readQuoteRequest } from '../../client/quote-requests.js';
import type { AckView, ProviderQuoteRequestView } from '../../client/views.js';
import { formatFixedPoint } from '../../domain/amounts.js';
import { decodeInvoice } from '../../domain/invoice.js';
import type { Market, Network } from '../../domain/markets.js';
import type { RefundAuthorizationMessage } from '../payments/report-refunds.js';
import type { PaymentResultMessage } from '../rules/payment-report.js';
import { priceQuote, type MarketPricing } from '../rules/pricing.js';
import type { ProviderState } from '../state/provider-state.js';
import type { ProviderCredentials } from './provider-credentials.js';

/** What the provider's Lightning side says before each quote. */
export interface LightningCapacity {
  nodeNetwork: Network;
  spendableMillisatoshis: bigint;
  atRiskMillisatoshis: bigint;
  inventoryLimitMillisatoshis: bigint;
}

/** What a chain needs to write a quote's funding details. */
export interface QuoteDetailsRequest {
  orderId: string;
  paymentHash: string;
  /** The quoted amount in the on-chain asset's base units. */
  amount: bigint;
  /** The user's refund address, when the request carries one (Bitcoin HTLCs refund to it). */
  refundAddress?: string;
}

/** One market the provider serves. */
export interface ServedMarket {
  market: Market;
  /** The bounds announced to the service as `payReq`, which hold whatever the rate. */
  limits: Pick<MarketPricing, 'minimumMillisatoshis' | 'maximumMillisatoshis' | 'minimumInvoiceLifetimeMs'>;
  /** The pricing now; undefined while the rate is unknown, and then nothing is quoted. */
  pricing: () => MarketPricing | undefined;
  /** The maker quote's `details`: the funding the user signs, paying the provider's claim; undefined declines. */
  details: (
    order: QuoteDetailsRequest,
  ) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined;
}

export interface QuoteResponderOptions {
  /** The service's base URL; `/provider/v1` is appended. */
  serviceUrl: string;
  credentials: ProviderCredentials;
  markets: readonly ServedMarket[];
  /** How long after the quote request the user may fund. */
  fundWindowMs: number;
  state: ProviderState;
  capacity: () => Promise<LightningCapacity>;
  now: () => number;
  /** How long to wait for each acknowledgement from the service. */
  ackTimeoutMs: number;
  /** Told how the service judged each quote sent: 'accepted' or its refusal token (the refused quote is closed by then). */
  onJudged?: (orderId: string, market: string, judgement: string) => void;
  /** Told of a quote request that could not be answered, or of a reconnection whose handshake failed. */
  onError?: (orderId: string | undefined, error: unknown) => void;
}

export interface QuoteResponder {
  /** Sends a `paymentResult` on the authenticated connection and resolves with the service's ack. */
  readonly sendPaymentResult: (message: PaymentResultMessage) => Promise<AckView>;
  /** Sends a `refundAuthorization` (signatures already written down) and resolves with the service's ack. */
  readonly sendRefundAuthorization: (message: RefundAuthorizationMessage) => Promise<AckView>;
  /**
   * Answers the service's `cancelOrder` (a funder asked to cancel an order this provider won) with `answer`'s
   * verdict: `undefined` once given up, or the refusal's token. Until it is called, cancels are refused.
   */
  answerCancels(answer: CancelAnswerer): void;
  /** Connected, authenticated and subscribed. */
  ready(): boolean;
  close(): void;
}

/** Gives up an order at its funder's request: `undefined` once done, otherwise the refusal's token. */
export type CancelAnswerer = (request: { orderId: string; funder: string }) => Promise<string | undefined>;

const MILLISATOSHIS_PER_SATOSHI = 1_000n;

/**
 * Connects to `/provider/v1`, authenticates, announces its markets and subscribes to their quote
 * requests, again after every reconnection (the service forgets a connection's login with it); each
 * request is priced, written down, and answered with a `makerQuote` whose funding names the
 * provider's claim. A request it will not serve gets no answer, which the protocol allows.
 */
export async function startQuoteResponder(options: QuoteResponderOptions): Promise<QuoteResponder> {
  const markets = new Map(options.markets.map((served) => [served.market.name, served]));
  const socket = io(`${options.serviceUrl}/provider/v1`, { transports: ['websocket'], forceNew: true });
  let ready = false;
  const call = async (event: string, payload: unknown): Promise<void> => {
    const ack = readAck(await socket.timeout(options.ackTimeoutMs).emitWithAck(event, payload), event);
    if (!ack.success) throw new Error(`${event} refused: ${ack.message}`);
  };
  const handshake = async (): Promise<void> => {
    await call('authenticate', { apiKey: options.credentials.apiKey, secretKey: options.credentials.secretKey });
    await call(
      'activeConfiguration',
      Object.fromEntries([...markets].map(([name, served]) => [name, { payReq: payReqOf(served.limits) }])),
    );
    // `{}` announces no market; the connection still reports payment outcomes.
    if (markets.size > 0) await call('subscribeToQuotes', [...markets.keys()]);
    ready = true;
  };

  socket.on('requestQuote', (payload: unknown) => {
    let request: ProviderQuoteRequestView;
    try {
      request = readQuoteRequest(payload);
    } catch (error) {
      options.onError?.(undefined, error);
      return;
    }
    answerQuoteRequest(socket, options, markets, request).catch((error: unknown) =>
      options.onError?.(request.orderId, error),
    );
  });
  let answerCancel: CancelAnswerer = async () => 'ProviderUnreachable';
  socket.on('cancelOrder', (payload: unknown, callback: unknown) => {
    if (typeof callback !== 'function') return;
    const ack = callback as (answer: { success: boolean; message?: string }) => void;
    const request = readCancelOrder(payload);
    const verdict = request === undefined ? Promise.resolve('InvalidOrMissingCancelFields') : answerCancel(request);
    verdict.then(
      (token) => ack(token === undefined ? { success: true } : { success: false, message: token }),
      (error: unknown) => {
        options.onError?.(request?.orderId, error);
        ack({ success: false, message: 'ProviderUnreachable' });
      },
    );
  });
  socket.on('disconnect', () => {
    ready = false;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    await handshake();
  } catch (error) {
    socket.close();
    throw error;
  }
  socket.on('connect', () => {
    handshake().catch((error: unknown) => options.onError?.(undefined, error));
  });
  return {
    sendPaymentResult: async (message) => {
      // Not buffered while disconnected: the next round sends whatever is still owed.
      if (!ready) throw new Error('not connected to the service');
      return readAck(await socket.timeout(options.ackTimeoutMs).emitWithAck('paymentResult', message), 'paymentResult');
    },
    sendRefundAuthorization: async (message) => {
      if (!ready) throw new Error('not connected to the service');
      const ack: unknown = await socket.timeout(options.ackTimeoutMs).emitWithAck('refundAuthorization', message);
      return readAck(ack, 'refundAuthorization');
    },
    answerCancels: (answer) => {
      answerCancel = answer;
    },
    ready: () => ready && socket.connected,
    close: () => {
      ready = false;
      socket.close();
    },
  };
}

async function answerQuoteRequest(
  socket: Socket,
  options: QuoteResponderOptions,
  markets: Map<string, ServedMarket>,
  request: ProviderQuoteRequestView,
): Promise<void> {
  const served = markets.get(request.market.toUpperCase());
  const invoice = decodeInvoice(request.invoice);
  if (served === undefined || invoice === undefined) return;
  const pricing = served.pricing();
  if (pricing === undefined) return;
  const capacity = await options.capacity();
  const decision = priceQuote(pricing, { invoice, nowMs: options.now(), ...capacity });
  if (!decision.quote || invoice.amountMillisatoshis === undefined) return;
  const details = await served.details({
    orderId: request.orderId,
    paymentHash: invoice.paymentHash,
    amount: decision.onchainAmount,
    ...(request.refundAddress === undefined ? {} : { refundAddress: request.refundAddress }),
  });
  if (details === undefined) return;
  const quoteExpiryTimestampMs = request.requestExpiryTimestampMs + options.fundWindowMs;
  options.state.recordQuote({
    orderId: request.orderId,
    market: served.market.name,
    paymentHash: invoice.paymentHash,
    invoice: request.invoice,
    invoiceAmountMillisatoshis: invoice.amountMillisatoshis,
    onchainAmount: decision.onchainAmount,
    expiresAtMs: quoteExpiryTimestampMs,
    quotedAtMs: options.now(),
  });
  const ack = readAck(
    await socket.timeout(options.ackTimeoutMs).emitWithAck('makerQuote', {
      orderId: request.orderId,
      quoteExpiryTimestampMs,
      amount: formatFixedPoint(decision.onchainAmount, served.market.onchain.decimals),
      details,
    }),
    'makerQuote',
  );
  // A refused quote is in no auction: it cannot win, so it stops counting against the inventory limit now.
  if (!ack.success) options.state.closeQuote(request.orderId);
  options.onJudged?.(request.orderId, served.market.name, ack.success ? 'accepted' : ack.message);
}

/** `{ orderId, funder }` of a `cancelOrder`, both strings; undefined for anything else. */
function readCancelOrder(payload: unknown): { orderId: string; funder: string } | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { orderId, funder } = payload as Record<string, unknown>;
  return typeof orderId === 'string' && typeof funder === 'string' ? { orderId, funder } : undefined;
}

/** What the service is told the provider accepts: the same bounds the pricing enforces, in satoshis. */
function payReqOf(limits: ServedMarket['limits']): {
  minExpirationSeconds: string;
  minBaseUnits: string;
  maxBaseUnits: string;
} {
  return {
    minExpirationSeconds: Math.ceil(limits.minimumInvoiceLifetimeMs / 1000).toString(),
    minBaseUnits: (
      (limits.minimumMillisatoshis + MILLISATOSHIS_PER_SATOSHI - 1n) /
      MILLISATOSHIS_PER_SATOSHI
    ).toString(),
    maxBaseUnits: (limits.maximumMillisatoshis / MILLISATOSHIS_PER_SATOSHI).toString(),
  };
}

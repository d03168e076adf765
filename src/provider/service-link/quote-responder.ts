import { io, type Socket } from 'socket.io-client';
import { formatFixedPoint } from '../../domain/amounts.js';
import { encodeFundCalldata } from '../../domain/ethereum.js';
import { decodeInvoice } from '../../domain/invoice.js';
import { findMarket, type Market, type Network } from '../../domain/markets.js';
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

export interface QuoteResponderOptions {
  /** The service's base URL; `/provider/v1` is appended. */
  serviceUrl: string;
  credentials: ProviderCredentials;
  /** Pricing per market name; Ethereum markets only for now. */
  markets: Readonly<Record<string, MarketPricing>>;
  swapContractAddress: string;
  /** The address the contract pays claims to: the provider's payout account. */
  payoutAddress: string;
  /** How long after the quote request the user may fund. */
  fundWindowMs: number;
  state: ProviderState;
  capacity: () => Promise<LightningCapacity>;
  now: () => number;
  /** How long to wait for each acknowledgement from the service. */
  ackTimeoutMs: number;
  /** Told how the service judged each quote sent: 'accepted' or its refusal token. */
  onJudged?: (orderId: string, judgement: string) => void;
  /** Told of a quote request that could not be answered (the node or the service did not answer). */
  onError?: (orderId: string, error: unknown) => void;
}

export interface QuoteResponder {
  /** Sends a `paymentResult` on the authenticated connection and resolves with the service's ack. */
  readonly sendPaymentResult: (message: PaymentResultMessage) => Promise<{ success: boolean; message?: unknown }>;
  close(): void;
}

interface QuoteRequest {
  orderId: string;
  market: string;
  invoice: string;
  requestExpiryTimestampMs: number;
}

const MILLISATOSHIS_PER_SATOSHI = 1_000n;

/**
 * Connects to `/provider/v1`, authenticates, announces its markets and subscribes to their quote
 * requests; each request is priced, written down, and answered with a `makerQuote` whose funding
 * call names the provider's payout address as claimer. A request it will not serve gets no answer,
 * which the protocol allows.
 */
export async function startQuoteResponder(options: QuoteResponderOptions): Promise<QuoteResponder> {
  const markets = new Map<string, { market: Market; pricing: MarketPricing }>();
  for (const [name, pricing] of Object.entries(options.markets)) {
    const market = findMarket(name);
    if (market?.onchain.chain !== 'ethereum') throw new Error(`${name}: the provider quotes Ethereum markets only`);
    markets.set(market.name, { market, pricing });
  }
  const socket = io(`${options.serviceUrl}/provider/v1`, { transports: ['websocket'], forceNew: true });
  const call = async (event: string, payload: unknown): Promise<void> => {
    const ack = (await socket.timeout(options.ackTimeoutMs).emitWithAck(event, payload)) as {
      success?: unknown;
      message?: unknown;
    };
    if (ack.success !== true) throw new Error(`${event} refused: ${String(ack.message)}`);
  };

  socket.on('requestQuote', (request: QuoteRequest) => {
    answerQuoteRequest(socket, options, markets, request).catch((error: unknown) =>
      options.onError?.(String(request.orderId), error),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    await call('authenticate', { apiKey: options.credentials.apiKey, secretKey: options.credentials.secretKey });
    await call(
      'activeConfiguration',
      Object.fromEntries([...markets].map(([name, { pricing }]) => [name, { payReq: payReqOf(pricing) }])),
    );
    // `{}` announces no market; the connection still reports payment outcomes.
    if (markets.size > 0) await call('subscribeToQuotes', [...markets.keys()]);
  } catch (error) {
    socket.close();
    throw error;
  }
  return {
    sendPaymentResult: async (message) => {
      // Not buffered while disconnected: the next round sends whatever is still owed.
      if (!socket.connected) throw new Error('not connected to the service');
      return (await socket.timeout(options.ackTimeoutMs).emitWithAck('paymentResult', message)) as {
        success: boolean;
        message?: unknown;
      };
    },
    close: () => socket.close(),
  };
}

async function answerQuoteRequest(
  socket: Socket,
  options: QuoteResponderOptions,
  markets: Map<string, { market: Market; pricing: MarketPricing }>,
  request: QuoteRequest,
): Promise<void> {
  const served = markets.get(String(request.market).toUpperCase());
  const invoice = typeof request.invoice === 'string' ? decodeInvoice(request.invoice) : undefined;
  if (served === undefined || invoice === undefined || typeof request.orderId !== 'string') return;
  const capacity = await options.capacity();
  const decision = priceQuote(served.pricing, { invoice, nowMs: options.now(), ...capacity });
  if (!decision.quote || invoice.amountMillisatoshis === undefined) return;
  const quoteExpiryTimestampMs = request.requestExpiryTimestampMs + options.fundWindowMs;
  options.state.recordQuote({
    orderId: request.orderId,
    market: served.market.name,
    paymentHash: invoice.paymentHash,
    invoiceAmountMillisatoshis: invoice.amountMillisatoshis,
    onchainAmount: decision.onchainAmount,
    expiresAtMs: quoteExpiryTimestampMs,
    quotedAtMs: options.now(),
  });
  const ack = (await socket.timeout(options.ackTimeoutMs).emitWithAck('makerQuote', {
    orderId: request.orderId,
    quoteExpiryTimestampMs,
    amount: formatFixedPoint(decision.onchainAmount, served.market.onchain.decimals),
    details: {
      unsignedFundingTx: {
        to: options.swapContractAddress,
        data: encodeFundCalldata(request.orderId, invoice.paymentHash, options.payoutAddress),
        value: decision.onchainAmount.toString(),
      },
    },
  })) as { success?: unknown; message?: unknown };
  options.onJudged?.(request.orderId, ack.success === true ? 'accepted' : String(ack.message));
}

/** What the service is told the provider accepts: the same bounds the pricing enforces, in satoshis. */
function payReqOf(pricing: MarketPricing): {
  minExpirationSeconds: string;
  minBaseUnits: string;
  maxBaseUnits: string;
} {
  return {
    minExpirationSeconds: Math.ceil(pricing.minimumInvoiceLifetimeMs / 1000).toString(),
    minBaseUnits: (
      (pricing.minimumMillisatoshis + MILLISATOSHIS_PER_SATOSHI - 1n) /
      MILLISATOSHIS_PER_SATOSHI
    ).toString(),
    maxBaseUnits: (pricing.maximumMillisatoshis / MILLISATOSHIS_PER_SATOSHI).toString(),
  };
}

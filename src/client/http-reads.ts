/**
 * The service's HTTP read API (docs/interface.md) as typed calls: each answer is read against the schema the server
 * serializes it with (`src/wire/response-shapes.ts`), so a field renamed on one side fails the type check of the
 * code that reads it, and an answer of another shape is refused before anything acts on it. A refusal throws
 * `ServiceRefusal` with the service's token. Runs wherever `fetch` does (Node 20, browsers).
 */
import { ORDER_STATES, type OrderState } from '../domain/states.js';
import {
  fundingDetailsShape,
  marketRequirementsShape,
  marketShape,
  orderShape,
  orderSummaryShape,
  refundShape,
  transactionShape,
  type FundingDetailsView,
  type MarketRequirementsView,
  type MarketView,
  type OrderSummaryView,
  type OrderView,
  type RefundView,
  type TransactionView,
} from '../wire/response-shapes.js';
import { readShape } from './read-shape.js';
import { ServiceRefusal, ServiceTimeout } from './service-refusal.js';

/** The largest answer (a long list of orders for one invoice) is well under this: reading stops past it. */
const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

export interface HttpReadsOptions {
  /** The service's base URL (`https://lnswap.example`), without a trailing slash. */
  serviceUrl: string;
  /** Bounds each read. */
  timeoutMs: number;
  maxAnswerBytes?: number;
}

/** Every read of the HTTP API; each throws `ServiceRefusal` with the service's token when refused. */
export interface HttpReads {
  /** `GET /api/markets`: the markets the service offers. */
  markets(): Promise<MarketView[]>;
  /** `GET /api/markets/requirements`: the requirements of each offered market an active provider serves. */
  marketRequirements(): Promise<MarketRequirementsView[]>;
  /** `GET /api/markets/:market/requirements`. */
  marketRequirementsOf(market: string): Promise<MarketRequirementsView>;
  /** `GET /api/orders?invoiceHash=`: the orders of an invoice (hashed here), newest first. */
  ordersOfInvoice(invoice: string, onchainTicker?: string): Promise<OrderSummaryView[]>;
  /** `GET /api/orders/:id`. */
  order(orderId: string): Promise<OrderView>;
  /** `GET /api/orders/:id/state`. */
  orderState(orderId: string): Promise<OrderState>;
  /** `GET /api/orders/:id/fundDetails`: what `requestQuote` answered for the order. */
  fundDetails(orderId: string): Promise<FundingDetailsView>;
  /** `GET /api/orders/:id/transactions`: its FUND and REFUND transactions, in the order they were recorded. */
  transactions(orderId: string): Promise<TransactionView[]>;
  /** `GET /api/orders/:id/refund[?funder=]`: how to refund it; with `funder`, that funder's slot of an Ethereum order. */
  refund(orderId: string, funder?: string): Promise<RefundView>;
}

const arrayOf = (items: object) => ({ type: 'array', items }) as const;
const orderStateShape = { type: 'string', enum: ORDER_STATES } as const;

export function httpReads(options: HttpReadsOptions): HttpReads {
  const maxBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const read = async <Answer>(path: string, shape: object): Promise<Answer> => {
    const what = `GET ${path}`;
    const { status, body } = await getBounded(`${options.serviceUrl}${path}`, what, options.timeoutMs, maxBytes);
    if (status !== 200) throw new ServiceRefusal(refusalToken(body), what, status);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new Error(`${what}: the service answered no JSON`);
    }
    return readShape<Answer>(shape, parsed, what);
  };
  const orderPath = (orderId: string) => `/api/orders/${encodeURIComponent(orderId)}`;
  return {
    markets: () => read(`/api/markets`, arrayOf(marketShape)),
    marketRequirements: () => read(`/api/markets/requirements`, arrayOf(marketRequirementsShape)),
    marketRequirementsOf: (market) =>
      read(`/api/markets/${encodeURIComponent(market)}/requirements`, marketRequirementsShape),
    async ordersOfInvoice(invoice, onchainTicker) {
      const query = new URLSearchParams({ invoiceHash: await invoiceHash(invoice) });
      if (onchainTicker !== undefined) query.set('onchainTicker', onchainTicker);
      return read(`/api/orders?${query.toString()}`, arrayOf(orderSummaryShape));
    },
    order: (orderId) => read(orderPath(orderId), orderShape),
    orderState: (orderId) => read(`${orderPath(orderId)}/state`, orderStateShape),
    fundDetails: (orderId) => read(`${orderPath(orderId)}/fundDetails`, fundingDetailsShape),
    transactions: (orderId) => read(`${orderPath(orderId)}/transactions`, arrayOf(transactionShape)),
    refund: (orderId, funder) =>
      read(
        `${orderPath(orderId)}/refund${funder === undefined ? '' : `?funder=${encodeURIComponent(funder)}`}`,
        refundShape,
      ),
  };
}

/**
 * The invoice's hash as the service keys orders by it: SHA-256 of the invoice string exactly as it was sent,
 * lowercase hex. Web Crypto, which Node 20 and browsers (in secure contexts) have.
 */
export async function invoiceHash(invoice: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(invoice));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The reads the provider daemon makes; 'not-found' when the service does not know the order (or not yet). */
export interface ServiceReads {
  order(orderId: string): Promise<OrderView | 'not-found'>;
  fundDetails(orderId: string): Promise<FundingDetailsView | 'not-found'>;
}

export type ServiceReadsOptions = HttpReadsOptions;

export function serviceReads(options: ServiceReadsOptions): ServiceReads {
  const reads = httpReads({ ...options, maxAnswerBytes: options.maxAnswerBytes ?? 64 * 1024 });
  return {
    order: (orderId) => orNotFound(reads.order(orderId)),
    fundDetails: (orderId) => orNotFound(reads.fundDetails(orderId)),
  };
}

async function orNotFound<Answer>(answer: Promise<Answer>): Promise<Answer | 'not-found'> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof ServiceRefusal && error.status === 404) return 'not-found';
    throw error;
  }
}

/** A refusal's body is a bare token; anything longer or with spaces (a 500's sentence, a proxy's page) is cut. */
function refusalToken(body: string): string {
  const token = body.trim();
  return /^[A-Za-z]{1,64}$/u.test(token) ? token : token.slice(0, 200);
}

/** The status and body of an answer within the time and size bounds. */
async function getBounded(
  url: string,
  what: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<{ status: number; body: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    return { status: response.status, body: await boundedText(response, what, maxBytes) };
  } catch (error) {
    if (signal.aborted) throw new ServiceTimeout(what, timeoutMs);
    throw error;
  }
}

async function boundedText(response: Response, what: string, maxBytes: number): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`${what}: answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(whole);
}

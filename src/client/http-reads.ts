/**
 * The service's HTTP read API (docs/api.md) as typed calls: each answer is read against the schema the server
 * serializes it with (`src/wire/response-shapes.ts`), so a field renamed on one side fails the type check of the
 * code that reads it, and an answer of another shape is refused before anything acts on it. Runs wherever
 * `fetch` does (Node 20, browsers).
 */
import { fundingDetailsShape, orderShape, type FundingDetailsView, type OrderView } from '../wire/response-shapes.js';
import { readShape } from './read-shape.js';

/** An order's answer is well under a kilobyte: reading stops past this. */
const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024;

export interface ServiceReadsOptions {
  /** The service's base URL. */
  serviceUrl: string;
  /** Bounds each read. */
  timeoutMs: number;
  maxAnswerBytes?: number;
}

/** The reads of the service; 'not-found' when it does not know the order (or not yet). */
export interface ServiceReads {
  order(orderId: string): Promise<OrderView | 'not-found'>;
  fundDetails(orderId: string): Promise<FundingDetailsView | 'not-found'>;
}

export function serviceReads(options: ServiceReadsOptions): ServiceReads {
  const maxBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const read = async <Answer>(path: string, shape: object): Promise<Answer | 'not-found'> => {
    const what = `GET ${path}`;
    const body = await getBounded(`${options.serviceUrl}${path}`, what, options.timeoutMs, maxBytes);
    if (body === undefined) return 'not-found';
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
    order: (orderId) => read<OrderView>(orderPath(orderId), orderShape),
    fundDetails: (orderId) => read<FundingDetailsView>(`${orderPath(orderId)}/fundDetails`, fundingDetailsShape),
  };
}

/** The body of a 200 within the time and size bounds, or undefined for a 404; anything else throws. */
async function getBounded(url: string, what: string, timeoutMs: number, maxBytes: number): Promise<string | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    const body = await boundedText(response, what, maxBytes);
    if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status} ${body.slice(0, 200)}`);
    return body;
  } catch (error) {
    if (signal.aborted) throw new Error(`${what}: no answer within ${timeoutMs} ms`, { cause: error });
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

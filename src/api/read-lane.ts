/**
 * The read lane: the order reads wallets make most, answered on node:http before Fastify sees them.
 *
 * Fastify's request and reply objects, hooks and routing cost more than a read from a warm store does (a cached
 * answer through Fastify takes twice the time of a bare node:http server's whole request). The lane takes
 * only a `GET` of one of these, spelled the plain way, with no body:
 *
 *   /api/orders/:id   /api/orders/:id/fundDetails   /api/orders/:id/refund   /api/orders/:id/transactions
 *   /api/orders?invoiceHash=<64 hex digits>
 *
 * and sends only a 200, with the body `OrderReads` gives the Fastify routes too and the headers Fastify would
 * send, written with the other answers of the same turn of the event loop (`AnswersOfOneTurn`). Anything else
 * (another spelling, a refusal, a failure) is handed to Fastify as if the lane were not there, which then reads
 * again and answers: refusals keep their one mapping (`errors.ts`), and an order that is not found costs two
 * reads. `test/api/read-lane.test.ts` holds both ways to the same bytes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { normalizeOrderId } from '../domain/order-ids.js';
import { AnswersOfOneTurn } from './answers-of-one-turn.js';
import type { HttpMetrics } from './http-metrics.js';
import type { OrderReads } from './order-reads.js';

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

const JSON_TYPE = 'application/json; charset=utf-8';

const BY_INVOICE_HASH = /^\/api\/orders\?invoiceHash=([0-9a-fA-F]{64})$/;
const BY_ORDER_ID = /^\/api\/orders\/([0-9a-fA-F-]{32,36})(\/fundDetails|\/refund|\/transactions)?$/;

type OrderRead = (reads: OrderReads, rawId: string) => string | Promise<string>;

/** The reads by order id the lane serves, by the path's tail, with the route label metrics use. */
const READS_BY_TAIL = new Map<string | undefined, { route: string; read: OrderRead }>([
  [undefined, { route: '/api/orders/:id', read: (reads, id) => reads.order(id) }],
  ['/fundDetails', { route: '/api/orders/:id/fundDetails', read: (reads, id) => reads.fundDetails(id) }],
  ['/refund', { route: '/api/orders/:id/refund', read: (reads, id) => reads.refund(id) }],
  ['/transactions', { route: '/api/orders/:id/transactions', read: (reads, id) => reads.transactions(id) }],
]);

interface LaneRead {
  readonly route: string;
  readonly answer: string | Promise<string>;
}

export interface ReadLaneOptions {
  readonly reads: OrderReads;
  /** Where the lane's answers are counted, as Fastify's are. */
  readonly metrics?: HttpMetrics;
}

/** A request handler that answers what the lane serves and hands everything else to `fallback`. */
export function readLaneBefore(fallback: RequestHandler, { reads, metrics }: ReadLaneOptions): RequestHandler {
  const answers = new AnswersOfOneTurn();
  function send(response: ServerResponse, route: string, body: string, startedAt: number): void {
    response.writeHead(200, [
      'content-type',
      JSON_TYPE,
      'x-request-id',
      randomUUID(),
      'content-length',
      String(Buffer.byteLength(body)),
    ]);
    response.end(body);
    metrics?.record(route, 'GET', 200, (performance.now() - startedAt) / 1000);
  }

  return (request, response) => {
    const lane = request.method === 'GET' && !hasBody(request) ? tryLaneRead(reads, request.url) : undefined;
    if (lane === undefined) {
      fallback(request, response);
      return;
    }
    const startedAt = performance.now();
    const { route, answer } = lane;
    if (typeof answer === 'string') {
      answers.add(response, () => send(response, route, answer, startedAt));
      return;
    }
    answer.then(
      (body) => answers.add(response, () => send(response, route, body, startedAt)),
      () => fallback(request, response),
    );
  };
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
}

/** A read that fails at once is Fastify's to answer, like one that fails later. */
function tryLaneRead(reads: OrderReads, url: string | undefined): LaneRead | undefined {
  try {
    return laneRead(reads, url);
  } catch {
    return undefined;
  }
}

/** The read for `url` when the lane serves it, started; undefined to leave the request to Fastify. */
function laneRead(reads: OrderReads, url: string | undefined): LaneRead | undefined {
  if (url === undefined || !url.startsWith('/api/orders')) return undefined;
  const byHash = BY_INVOICE_HASH.exec(url);
  if (byHash !== null) return { route: '/api/orders', answer: reads.ordersByInvoiceHash(byHash[1]!, undefined) };
  const byId = BY_ORDER_ID.exec(url);
  if (byId === null || normalizeOrderId(byId[1]!) === undefined) return undefined;
  const { route, read } = READS_BY_TAIL.get(byId[2])!;
  return { route, answer: read(reads, byId[1]!) };
}

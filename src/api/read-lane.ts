/**
 * The read lane: the order reads wallets make most, answered on node:http before Fastify sees them.
 *
 * Fastify's request and reply objects, hooks and routing cost more than a read from a warm store does
 * (BENCHMARKS.md). The lane takes only a `GET` without a body of a route of `order-read-routes.ts`, spelled the
 * plain way (no percent-encoding, no trailing slash, no other query parameter):
 *
 *   /api/orders/:id and each of its tails      /api/orders?invoiceHash=<hash>[&onchainTicker=<ticker>]
 *
 * and answers it whatever the read gives: the body of the same `OrderReads` the Fastify routes send, or the
 * refusal or failure `errors.ts` maps the error to, with the headers Fastify would send, written with the other
 * answers of the same turn of the event loop (`AnswersOfOneTurn`). Every other request is handed to Fastify as
 * if the lane were not there. `test/api/read-lane.test.ts` holds both ways to the same status, headers and bytes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { LnswapError } from '../domain/errors.js';
import { AnswersOfOneTurn } from './answers-of-one-turn.js';
import { TEXT_CONTENT_TYPE, textAnswerOf } from './errors.js';
import type { HttpMetrics } from './http-metrics.js';
import { FIND_ORDERS_ROUTE, ONE_ORDER_ROUTES, type OneOrderQuery, type OrderAnswer } from './order-read-routes.js';
import type { OrderReads } from './order-reads.js';

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Characters a path segment or query value means as they are: Fastify decodes nothing in them. */
const PLAIN = '[\\w.~-]';

function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const ROUTES_BY_TAIL = new Map(ONE_ORDER_ROUTES.map((route) => [route.tail, route]));
const TAILS = ONE_ORDER_ROUTES.filter(({ tail }) => tail !== '').map(({ tail }) => escapeForPattern(tail));
const ONE_ORDER = new RegExp(`^/api/orders/(${PLAIN}+)(${TAILS.join('|')})?$`);
const FIND_ORDERS = new RegExp(`^/api/orders\\?invoiceHash=(${PLAIN}*)(?:&onchainTicker=(${PLAIN}+))?$`);
/** The route schema's own check of the hash, so the lane refuses exactly what Fastify refuses. */
const INVOICE_HASH = new RegExp(FIND_ORDERS_ROUTE.schema.querystring.properties.invoiceHash.pattern);
const INVALID_INVOICE_HASH = new LnswapError(FIND_ORDERS_ROUTE.queryTokens.get('invoiceHash') ?? 'BadRequest');

/** The lane takes no query on a read of one order: a refund `?funder=` is Fastify's to answer. */
const NO_QUERY: OneOrderQuery = {};

interface LaneRead {
  readonly route: string;
  readonly answer: OrderAnswer;
}

export interface ReadLaneOptions {
  readonly reads: OrderReads;
  /** Where the lane's answers are counted, as Fastify's are. */
  readonly metrics?: HttpMetrics;
  /** The API's logger, asked for only when there is something to log. */
  readonly log: () => FastifyBaseLogger;
  /** One `debug` line per answer, as Fastify's routes log with the access log on. */
  readonly accessLog: boolean;
}

/** A request handler that answers what the lane serves and hands everything else to `fallback`. */
export function readLaneBefore(
  fallback: RequestHandler,
  { reads, metrics, log, accessLog }: ReadLaneOptions,
): RequestHandler {
  const answers = new AnswersOfOneTurn();

  function finish(request: IncomingMessage, route: string, status: number, startedAt: number, requestId: string) {
    const seconds = (performance.now() - startedAt) / 1000;
    metrics?.record(route, 'GET', status, seconds);
    if (accessLog) {
      log().debug(
        { reqId: requestId, method: 'GET', url: request.url, statusCode: status, responseTimeMs: seconds * 1000 },
        'request completed',
      );
    }
  }

  function send(request: IncomingMessage, response: ServerResponse, route: string, body: string, startedAt: number) {
    const requestId = randomUUID();
    response.writeHead(200, [
      'content-type',
      JSON_TYPE,
      'x-request-id',
      requestId,
      'content-length',
      String(Buffer.byteLength(body)),
    ]);
    response.end(body);
    finish(request, route, 200, startedAt, requestId);
  }

  function refuse(
    request: IncomingMessage,
    response: ServerResponse,
    route: string,
    error: unknown,
    startedAt: number,
  ) {
    const requestId = randomUUID();
    const { status, body, retryAfter, failure } = textAnswerOf(error);
    if (failure) log().error({ reqId: requestId, err: error }, 'request failed');
    const headers = ['x-request-id', requestId, 'content-type', TEXT_CONTENT_TYPE];
    if (retryAfter !== undefined) headers.push('retry-after', retryAfter);
    headers.push('content-length', String(Buffer.byteLength(body)));
    response.writeHead(status, headers);
    response.end(body);
    finish(request, route, status, startedAt, requestId);
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
      answers.add(response, () => send(request, response, route, answer, startedAt));
      return;
    }
    answer.then(
      (body) => answers.add(response, () => send(request, response, route, body, startedAt)),
      (error: unknown) => answers.add(response, () => refuse(request, response, route, error, startedAt)),
    );
  };
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
}

/** A read that throws at once (none does by design) is Fastify's to answer, with its logging of failures. */
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
  const byId = ONE_ORDER.exec(url);
  if (byId !== null) {
    const { url: route, read } = ROUTES_BY_TAIL.get(byId[2] ?? '')!;
    return { route, answer: read(reads, byId[1]!, NO_QUERY) };
  }
  const find = FIND_ORDERS.exec(url);
  if (find === null) return undefined;
  const [, invoiceHash, onchainTicker] = find;
  const route = FIND_ORDERS_ROUTE.url;
  if (!INVOICE_HASH.test(invoiceHash!)) return { route, answer: Promise.reject(INVALID_INVOICE_HASH) };
  return { route, answer: FIND_ORDERS_ROUTE.read(reads, invoiceHash!, onchainTicker) };
}

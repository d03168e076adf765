/**
 * The one place the HTTP API turns refusals and failures into responses: a status and a bare
 * text token, or a fixed sentence for anything unexpected.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { FAILURE_MESSAGE, isLnswapError, LnswapError, type ErrorToken } from '../domain/errors.js';
import { READ_METHODS } from './methods.js';

export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/**
 * Every token refuses something the client sent, so 400, except a well-formed id of no order or a well-formed
 * funder of no slot, and a database that cannot be reached, which is no fault of the request.
 */
export function statusForToken(token: ErrorToken): number {
  if (token === 'ServiceUnavailable') return 503;
  return token === 'OrderNotFound' || token === 'SlotNotFound' ? 404 : 400;
}

/** Seconds a client is asked to wait before repeating a request refused with ServiceUnavailable. */
const RETRY_AFTER_SECONDS = '1';

/** A refusal or failure as the API sends it, whichever way the request came in (Fastify or the read lane). */
export interface TextAnswer {
  readonly status: number;
  readonly body: string;
  /** The `retry-after` header's value, for the refusals a client may simply repeat. */
  readonly retryAfter: string | undefined;
  /** Whether the error is unexpected: logged, and never shown. */
  readonly failure: boolean;
}

const ANSWERS_BY_TOKEN = new Map<ErrorToken, TextAnswer>();

/** The answer to an error thrown by a route: its token when it is a refusal, else the fixed sentence. */
export function textAnswerOf(error: unknown): TextAnswer {
  if (!isLnswapError(error)) return { status: 500, body: FAILURE_MESSAGE, retryAfter: undefined, failure: true };
  const { token } = error;
  let answer = ANSWERS_BY_TOKEN.get(token);
  if (answer === undefined) {
    const retryAfter = token === 'ServiceUnavailable' ? RETRY_AFTER_SECONDS : undefined;
    answer = { status: statusForToken(token), body: token, retryAfter, failure: false };
    ANSWERS_BY_TOKEN.set(token, answer);
  }
  return answer;
}

function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type(TEXT_CONTENT_TYPE).send(body);
}

function sendAnswer(reply: FastifyReply, { status, body, retryAfter }: TextAnswer): FastifyReply {
  if (retryAfter !== undefined) reply.header('retry-after', retryAfter);
  return sendText(reply, status, body);
}

export function replyNotFound(reply: FastifyReply): FastifyReply {
  return sendText(reply, 404, 'NotFound');
}

export function replyMethodNotAllowed(reply: FastifyReply): FastifyReply {
  return sendText(reply.header('allow', [...READ_METHODS].join(', ')), 405, 'MethodNotAllowed');
}

/** Route error handler: tokens go out as they are; anything else is logged and never shown. */
export function handleRouteError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const answer = textAnswerOf(error);
  if (answer.failure) request.log.error({ err: error }, 'request failed');
  return sendAnswer(reply, answer);
}

/** Requests the router cannot match at all, such as a path with undecodable percent-encoding. */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  request.log.info({ err: error }, 'malformed request');
  sendAnswer(reply.header('x-request-id', request.id), textAnswerOf(new LnswapError('BadRequest')));
}

/**
 * Requests Node's HTTP parser rejects before any route sees them. Keeps the status Node would give
 * (400, 408, 431) but answers with a token like every other refusal.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body: ErrorToken = 'BadRequest';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${TEXT_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

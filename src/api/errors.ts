/**
 * The one place the HTTP API turns refusals and failures into responses: a status and a bare
 * text token, or a fixed sentence for anything unexpected.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { FAILURE_MESSAGE, isLnswapError, type ErrorToken } from '../domain/errors.js';
import { READ_METHODS } from './methods.js';

const TEXT = 'text/plain; charset=utf-8';

/**
 * Every token refuses something the client sent, so 400, except a well-formed id of no order, and a
 * database that cannot be reached, which is no fault of the request.
 */
export function statusForToken(token: ErrorToken): number {
  if (token === 'ServiceUnavailable') return 503;
  return token === 'OrderNotFound' ? 404 : 400;
}

/** Seconds a client is asked to wait before repeating a request refused with ServiceUnavailable. */
const RETRY_AFTER_SECONDS = '1';

function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type(TEXT).send(body);
}

function replyWithToken(reply: FastifyReply, token: ErrorToken): FastifyReply {
  if (token === 'ServiceUnavailable') reply.header('retry-after', RETRY_AFTER_SECONDS);
  return sendText(reply, statusForToken(token), token);
}

export function replyNotFound(reply: FastifyReply): FastifyReply {
  return sendText(reply, 404, 'NotFound');
}

export function replyMethodNotAllowed(reply: FastifyReply): FastifyReply {
  return sendText(reply.header('allow', [...READ_METHODS].join(', ')), 405, 'MethodNotAllowed');
}

/** Route error handler: tokens go out as they are; anything else is logged and never shown. */
export function handleRouteError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isLnswapError(error)) return replyWithToken(reply, error.token);
  request.log.error({ err: error }, 'request failed');
  return sendText(reply, 500, FAILURE_MESSAGE);
}

/** Requests the router cannot match at all, such as a path with undecodable percent-encoding. */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  request.log.info({ err: error }, 'malformed request');
  replyWithToken(reply.header('x-request-id', request.id), 'BadRequest');
}

/**
 * Requests Node's HTTP parser rejects before any route sees them. Keeps the status Node would give
 * (400, 408, 431) but answers with a token like every other refusal.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body: ErrorToken = 'BadRequest';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${TEXT}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

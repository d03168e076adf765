import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { LnswapError, type ErrorToken } from '../domain/errors.js';
import { failureAck, successAck, type AckPayload } from './acks.js';
import { checkPayloadBounds } from './payload-bounds.js';
import { TokenBucket, type RateLimit } from '../domain/token-bucket.js';

export interface RequestContext {
  /** Names the request in the log, and in the history of an order it moves. */
  readonly requestId: string;
}

export type RequestHandler = (payload: unknown, context: RequestContext) => Promise<unknown>;

export interface RequestLimits {
  readonly maxPayloadBytes: number;
  /** Events whose payload may be larger than `maxPayloadBytes`, with their own bound. */
  readonly maxPayloadBytesByEvent?: Readonly<Record<string, number>>;
  readonly maxPayloadDepth: number;
  readonly eventsPerConnection: RateLimit;
  /** Resolves false when the client's address has used up its events, across instances. */
  readonly takeAddressToken: () => Promise<boolean>;
  /** A handler still busy after this long is answered InternalServerError. */
  readonly requestTimeoutMs: number;
  readonly now: () => number;
}

/** Longest event name written to the log: names are client data. */
const LOGGED_EVENT_CHARS = 64;

class RequestTimedOut extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RequestTimedOut';
  }
}

/**
 * Serves every event of a socket through one listener. Each request is an event with an optional
 * ack callback; the handler's result becomes `{ success: true, message }`, a refusal
 * `{ success: false, message: token }`. Bounds, the rate limit and the event name are checked before
 * any handler runs. Every request that carries a callback is answered exactly once, whatever
 * happens: a handler that throws (at once or later) or runs past `requestTimeoutMs` answers
 * InternalServerError and is logged once with its request id. Nothing a request does can escape
 * into socket.io's own ticks, where an exception would end the process.
 */
export function handleRequests(
  socket: Socket,
  handlers: Readonly<Record<string, RequestHandler>>,
  limits: RequestLimits,
  logger: Logger,
): void {
  const events = new TokenBucket(limits.eventsPerConnection, limits.now());
  socket.onAny((event: unknown, ...args: unknown[]) => {
    const requestId = randomUUID();
    const logged = { requestId, event: String(event).slice(0, LOGGED_EVENT_CHARS), socketId: socket.id };
    const answerClient = answerOnce(args, (error) =>
      logger.error({ err: error, ...logged }, 'socket request answer could not be sent'),
    );
    const answer = (response: AckPayload) => {
      logger.debug({ ...logged, success: response.success }, 'socket request completed');
      answerClient(response);
    };
    const failed = (error: unknown) => {
      if (error instanceof RequestTimedOut)
        logger.error({ ...logged, timeoutMs: limits.requestTimeoutMs }, 'socket request timed out');
      else if (!(error instanceof LnswapError)) logger.error({ err: error, ...logged }, 'socket request failed');
      answer(failureAck(error));
    };
    try {
      const last = args[args.length - 1];
      // With only a callback sent, there is no payload.
      const payload = typeof last === 'function' && args.length === 1 ? undefined : args[0];
      const refusal = refusalBeforeHandling(event, payload);
      if (refusal !== undefined) return answer(failureAck(new LnswapError(refusal)));
      const handler = handlers[event as string] as RequestHandler;
      const handle = async () => {
        if (!(await limits.takeAddressToken())) throw new LnswapError('RateLimitExceeded');
        return handler(payload, { requestId });
      };
      withinTime(limits.requestTimeoutMs, handle).then((message) => answer(successAck(message)), failed);
    } catch (error) {
      failed(error);
    }
  });

  function refusalBeforeHandling(event: unknown, payload: unknown): ErrorToken | undefined {
    const byEvent = limits.maxPayloadBytesByEvent ?? {};
    const ownBound = typeof event === 'string' && Object.hasOwn(byEvent, event) ? byEvent[event] : undefined;
    const maxBytes = ownBound ?? limits.maxPayloadBytes;
    const outOfBounds = checkPayloadBounds(payload, { maxBytes, maxDepth: limits.maxPayloadDepth });
    if (outOfBounds !== undefined) return outOfBounds;
    if (!events.tryTake(limits.now())) return 'RateLimitExceeded';
    if (typeof event !== 'string' || !Object.hasOwn(handlers, event)) return 'UnknownEvent';
    return undefined;
  }
}

/**
 * The ack callback of a request, called at most once; a no-op for requests sent without one. An
 * answer socket.io cannot send is replaced by InternalServerError.
 */
function answerOnce(args: readonly unknown[], cannotSend: (error: unknown) => void): (response: AckPayload) => void {
  const last = args[args.length - 1];
  const ack = typeof last === 'function' ? (last as (response: AckPayload) => void) : undefined;
  let answered = false;
  return (response) => {
    if (answered || ack === undefined) return;
    answered = true;
    try {
      ack(response);
    } catch (error) {
      cannotSend(error);
      try {
        ack(failureAck(error));
      } catch (fallbackError) {
        cannotSend(fallbackError);
      }
    }
  };
}

/** Runs `work` (even one that throws at once) and rejects with RequestTimedOut if it takes longer than `timeoutMs`. */
function withinTime<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RequestTimedOut(timeoutMs)), timeoutMs);
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}

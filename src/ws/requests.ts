import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { LnswapError } from '../domain/errors.js';
import { failureAck, successAck, type AckPayload } from './acks.js';
import { TokenBucket, type RateLimit } from './rate-limiter.js';

export type RequestHandler = (payload: unknown) => Promise<unknown>;

export interface RequestLimits {
  readonly maxPayloadBytes: number;
  readonly eventsPerConnection: RateLimit;
  readonly now: () => number;
}

/**
 * Registers request handlers on a socket. Each request is an event with an optional ack callback;
 * the handler's result becomes `{ success: true, message }`, a refusal `{ success: false, message: token }`.
 * Size and rate bounds are checked before the handler runs.
 */
export function handleRequests(
  socket: Socket,
  handlers: Readonly<Record<string, RequestHandler>>,
  limits: RequestLimits,
  logger: Logger,
): void {
  const events = new TokenBucket(limits.eventsPerConnection, limits.now());
  for (const [event, handler] of Object.entries(handlers)) {
    socket.on(event, (...args: unknown[]) => {
      const last = args[args.length - 1];
      const ack = typeof last === 'function' ? (last as (answer: AckPayload) => void) : undefined;
      // With only a callback sent, there is no payload.
      const payload = ack !== undefined && args.length === 1 ? undefined : args[0];
      const answer = (response: AckPayload) => ack?.(response);

      if (payloadBytes(payload) > limits.maxPayloadBytes) return answer(failureAck(new LnswapError('PayloadTooLarge')));
      if (!events.tryTake(limits.now())) return answer(failureAck(new LnswapError('RateLimitExceeded')));

      Promise.resolve(payload).then(handler).then(
        (message) => answer(successAck(message)),
        (error: unknown) => {
          if (!(error instanceof LnswapError)) {
            logger.error({ err: error, event, socketId: socket.id }, 'socket request failed');
          }
          answer(failureAck(error));
        },
      );
    });
  }
}

function payloadBytes(payload: unknown): number {
  const json = JSON.stringify(payload);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- JSON.stringify(undefined) is undefined, whatever its declared type says
  return json === undefined ? 0 : Buffer.byteLength(json);
}

import type { RateLimit } from '../domain/token-bucket.js';
import { MAX_BROADCAST_PAYLOAD_BYTES } from './broadcast-transaction.js';
import type { TrustProxy } from './client-address.js';

/** Flood bounds and cluster timing of the socket.io server. */
export interface SocketOptions {
  /** Largest JSON payload of one event; larger ones are refused with PayloadTooLarge. */
  readonly maxPayloadBytes: number;
  /** Largest JSON payload of a `broadcastTransaction`, which carries a whole signed transaction. */
  readonly maxBroadcastPayloadBytes: number;
  /** Deepest nesting of arrays and objects in one event's payload; deeper ones are refused with InvalidPayload. */
  readonly maxPayloadDepth: number;
  /** Largest socket.io message at all; a client sending more is disconnected before anything parses it. */
  readonly maxMessageBytes: number;
  /** Deepest nesting in a socket.io message at all; a client sending more is disconnected before anything parses it. */
  readonly maxMessageDepth: number;
  /** A request whose handler is still busy after this long is answered InternalServerError. */
  readonly requestTimeoutMs: number;
  readonly quoteRequestsPerConnection: RateLimit;
  readonly quoteRequestsPerAddress: RateLimit;
  /** Applies to every event of a connection, quote requests included. */
  readonly eventsPerConnection: RateLimit;
  /** Every event from one client address, all its connections to every instance together. */
  readonly eventsPerAddress: RateLimit;
  /**
   * Bytes one connection sends (a WebSocket's as they arrive, a long-polling packet's characters, each at least a
   * byte), charged before anything scans them: a packet they do not fit is refused with RateLimitExceeded, and the
   * connection reads nothing until its budget is paid back. The burst holds the largest broadcast.
   */
  readonly bytesPerConnection: RateLimit;
  /** The same for all connections of one client address to this instance together. */
  readonly bytesPerAddress: RateLimit;
  /** Open connections from one client address to one instance, both namespaces together. */
  readonly connectionsPerAddress: number;
  /** Each authentication costs a slow hash, so attempts are limited per address. */
  readonly authenticationsPerAddress: RateLimit;
  /** Which proxies in front are believed about the client's address (X-Forwarded-For); false for none. */
  readonly trustProxy: TrustProxy;
  /** How long a provider waits for the instance running an auction to judge its forwarded quote. */
  readonly forwardedQuoteTimeoutMs: number;
  /** How long to wait for the other instances when looking up connected providers. */
  readonly clusterRequestTimeoutMs: number;
  /** Heartbeats by which instances sharing PostgreSQL learn about each other. */
  readonly clusterHeartbeatIntervalMs: number;
  readonly clusterHeartbeatTimeoutMs: number;
}

export const DEFAULT_SOCKET_OPTIONS: SocketOptions = {
  maxPayloadBytes: 16 * 1024,
  maxBroadcastPayloadBytes: MAX_BROADCAST_PAYLOAD_BYTES,
  maxPayloadDepth: 32,
  // Over twice the largest broadcast a chain relays: a client that overshoots even that much gets its token, not a close.
  maxMessageBytes: 2 * 1024 * 1024,
  maxMessageDepth: 64,
  requestTimeoutMs: 30_000,
  quoteRequestsPerConnection: { burst: 5, perSecond: 0.5 },
  quoteRequestsPerAddress: { burst: 30, perSecond: 3 },
  eventsPerConnection: { burst: 100, perSecond: 20 },
  eventsPerAddress: { burst: 500, perSecond: 100 },
  bytesPerConnection: { burst: 1024 * 1024, perSecond: 64 * 1024 },
  bytesPerAddress: { burst: 4 * 1024 * 1024, perSecond: 256 * 1024 },
  connectionsPerAddress: 50,
  authenticationsPerAddress: { burst: 10, perSecond: 0.5 },
  trustProxy: false,
  forwardedQuoteTimeoutMs: 3_000,
  clusterRequestTimeoutMs: 5_000,
  clusterHeartbeatIntervalMs: 5_000,
  clusterHeartbeatTimeoutMs: 10_000,
};

export function resolveSocketOptions(overrides: Partial<SocketOptions> = {}): SocketOptions {
  const options = { ...DEFAULT_SOCKET_OPTIONS, ...overrides };
  if (Math.max(options.maxPayloadBytes, options.maxBroadcastPayloadBytes) > options.maxMessageBytes) {
    throw new RangeError('socket options maxPayloadBytes and maxBroadcastPayloadBytes must not exceed maxMessageBytes');
  }
  const largestPayload = Math.max(options.maxPayloadBytes, options.maxBroadcastPayloadBytes);
  if (Math.min(options.bytesPerConnection.burst, options.bytesPerAddress.burst) < largestPayload) {
    throw new RangeError(
      'socket options bytesPerConnection and bytesPerAddress must hold the largest payload in their burst',
    );
  }
  // The message wraps the payload in the event's argument array.
  if (options.maxPayloadDepth + 1 > options.maxMessageDepth) {
    throw new RangeError('socket option maxPayloadDepth must be below maxMessageDepth');
  }
  if (options.requestTimeoutMs <= options.forwardedQuoteTimeoutMs) {
    throw new RangeError('socket option requestTimeoutMs must exceed forwardedQuoteTimeoutMs');
  }
  return options;
}

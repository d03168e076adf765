import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import { Encoder, PacketType } from 'socket.io-parser';
import { LnswapError, type ErrorToken } from '../domain/errors.js';
import { failureAck } from './acks.js';
import type { ByteBudgets } from './byte-budgets.js';
import type { EngineConnection } from './client-address.js';
import { readPacketHeader } from './packet-header.js';

/** What the gate uses of an engine.io connection (engine.io's Socket). */
interface GatedConnection extends EngineConnection {
  readonly id: string;
  readonly request: EngineConnection['request'] & { readonly socket: Duplex };
  readonly transport: { readonly name: string; readonly socket?: { pause(): void; resume(): void } };
  listeners(event: 'data'): ((data: unknown) => void)[];
  removeListener(event: 'data', listener: (data: unknown) => void): unknown;
  on(event: 'data', listener: (data: string | Buffer) => void): unknown;
  on(event: 'upgrade', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  write(data: string): unknown;
  close(): unknown;
}

export interface PacketGateOptions {
  readonly budgets: ByteBudgets;
  readonly addressOf: (connection: EngineConnection) => string;
  /** The namespaces served: a refused packet addressed elsewhere gets no ack. */
  readonly namespaces: readonly string[];
  /** The largest payload an event may carry in a namespace (its JSON, in bytes); the name is undefined when unread. */
  readonly payloadBound: (namespace: string, event: string | undefined) => number;
  readonly now: () => number;
  readonly logger: Logger;
}

/** `["` and `",` around the event name, and the closing `]`, around an event's payload. */
const EVENT_ENVELOPE_CHARS = 5;
/** Longest event name written to the log: names are client data. */
const LOGGED_EVENT_CHARS = 64;

/**
 * Stands between the wire and socket.io's decoder. A WebSocket's bytes are charged to its connection's and
 * address's byte budgets as the kernel hands them over, and the connection reads nothing more while a budget
 * owes, so a sender over its budget waits in its own TCP buffers, not in this process; a long-polling packet is
 * charged as it is read (its characters, each at least a byte), and the next POST of its connection waits,
 * unread, while a budget owes. A packet whose bytes found a budget empty is refused RateLimitExceeded; an event
 * larger than its own bound is refused PayloadTooLarge from its header; both before anything scans or parses it.
 * A refused event that asks for an ack in a namespace served is answered with the token; any other refused
 * packet closes its connection, as socket.io's decoder does with a packet it refuses.
 */
export function gatePackets(io: Server, options: PacketGateOptions): void {
  const encoder = new Encoder();
  const owingUntil = new Map<string, number>();
  /** The TCP connection each pending upgrade to WebSocket arrived on, by engine.io session. */
  const upgradingSockets = new Map<string, Duplex>();

  io.engine.use((request: IncomingMessage, _response: ServerResponse, next: () => void) => {
    const query = new URL(request.url ?? '/', 'http://engine.io').searchParams;
    const sid = query.get('sid');
    if (sid !== null && query.get('transport') === 'websocket') upgradingSockets.set(sid, request.socket);
    const until = sid === null || request.method !== 'POST' ? undefined : owingUntil.get(sid);
    const wait = until === undefined ? 0 : until - options.now();
    if (wait > 0) setTimeout(next, wait);
    else next();
  });

  // socket.io's own listener has attached the connection's decoder by now: it listens first.
  io.engine.on('connection', (connection: GatedConnection) => {
    const decode = connection.listeners('data')[0];
    // Never served ungated: a socket.io that attached no listener yet would otherwise bypass every budget.
    if (decode === undefined) {
      options.logger.error('socket.io attached no packet listener before the gate: connection closed');
      connection.close();
      return;
    }
    connection.removeListener('data', decode);
    const address = options.addressOf(connection);
    const charge = options.budgets.forConnection(address);
    let resumeTimer: NodeJS.Timeout | undefined;
    let ranOutSinceLastPacket = false;

    const pause = (ms: number) => {
      const until = options.now() + ms;
      if (until <= (owingUntil.get(connection.id) ?? 0)) return;
      owingUntil.set(connection.id, until);
      const paused = connection.transport.name === 'websocket' ? connection.transport.socket : undefined;
      paused?.pause();
      clearTimeout(resumeTimer);
      resumeTimer = setTimeout(() => {
        owingUntil.delete(connection.id);
        paused?.resume();
      }, ms);
    };
    const chargeBytes = (bytes: number) => {
      const { fits, pauseMs } = charge(bytes);
      if (!fits) ranOutSinceLastPacket = true;
      if (pauseMs > 0) pause(pauseMs);
    };
    // Ahead of the WebSocket's own listener: a chunk is charged before the packet it completes is handed over.
    let wire: Duplex | undefined;
    const meterTheWire = (socket: Duplex) => {
      wire = socket;
      socket.prependListener('data', (chunk: Buffer) => chargeBytes(chunk.length));
    };
    if (connection.transport.name === 'websocket') meterTheWire(connection.request.socket);
    connection.on('upgrade', () => {
      const socket = upgradingSockets.get(connection.id);
      upgradingSockets.delete(connection.id);
      if (socket !== undefined) meterTheWire(socket);
    });
    // A paused WebSocket would never read the client's half of a closing handshake: its TCP connection ends now.
    const refuseConnection = () => {
      connection.close();
      wire?.destroy();
    };
    connection.once('close', () => {
      clearTimeout(resumeTimer);
      owingUntil.delete(connection.id);
      upgradingSockets.delete(connection.id);
    });

    connection.on('data', (data) => {
      if (wire === undefined) chargeBytes(typeof data === 'string' ? data.length : data.byteLength);
      const ranOut = ranOutSinceLastPacket;
      ranOutSinceLastPacket = false;
      if (typeof data !== 'string') {
        if (ranOut) refuseConnection();
        else decode(data);
        return;
      }
      const header = readPacketHeader(data);
      const payloadChars = data.length - header.dataStart - (header.event?.length ?? 0) - EVENT_ENVELOPE_CHARS;
      // Too large is the lasting answer: the same message would never fit, budget or not.
      const refusal: ErrorToken | undefined =
        payloadChars > options.payloadBound(header.namespace, header.event)
          ? 'PayloadTooLarge'
          : ranOut
            ? 'RateLimitExceeded'
            : undefined;
      if (refusal === undefined) return decode(data);
      options.logger.debug(
        { address, event: header.event?.slice(0, LOGGED_EVENT_CHARS), chars: data.length, refusal },
        'socket packet refused before decoding',
      );
      if (!header.isEvent || header.ackId === undefined || !options.namespaces.includes(header.namespace)) {
        refuseConnection();
        return;
      }
      const ack = {
        type: PacketType.ACK,
        nsp: header.namespace,
        id: header.ackId,
        data: [failureAck(new LnswapError(refusal))],
      };
      for (const encoded of encoder.encode(ack) as string[]) connection.write(encoded);
    });
  });
}

import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { Server as SocketServer } from 'socket.io';
import { io as connectUpstream } from 'socket.io-client';
import type { FundingDetailsView } from '../../src/wire/response-shapes.js';

/** Replaces a quote the real service answered with the one the page is to receive. */
export type QuoteLie = (quote: FundingDetailsView) => FundingDetailsView;

/**
 * A compromised lnswap service, as a page or wallet meets one (or a man in the middle on its API): in front of a
 * real service, every HTTP request is relayed unchanged and every socket.io event is passed on both ways, but the
 * quote `requestQuote` answers on `/user/v1` is rewritten by `lie` on its way back. The events are relayed one by
 * one (a socket.io server facing the page, a socket.io client per connection facing the service), since the quote
 * rides in a WebSocket frame that an HTTP relay (test/support/http-relay.ts) pipes unread.
 */
export class LyingService {
  private server: Server | undefined;
  private sockets: SocketServer | undefined;
  /** Undefined: the quote passes as the service answered it. */
  lie: QuoteLie | undefined;
  /** Every quote as the real service answered it, before the lie. */
  readonly honestQuotes: FundingDetailsView[] = [];
  /** Every quote as the client received it, after the lie. */
  readonly toldQuotes: FundingDetailsView[] = [];

  constructor(private readonly target: URL) {}

  get url(): string {
    const address = this.server?.address();
    if (address === null || address === undefined || typeof address === 'string') {
      throw new Error('lying service not listening');
    }
    return `http://127.0.0.1:${String(address.port)}`;
  }

  async start(): Promise<void> {
    const server = createServer((incoming, outgoing) => {
      const upstream = request(
        {
          host: this.target.hostname,
          port: this.target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: this.target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    });
    const sockets = new SocketServer(server, { serveClient: false });
    sockets.of(/^\/[a-z0-9/]+$/).on('connection', (socket) => {
      const upstream = connectUpstream(`${this.target.origin}${socket.nsp.name}`, {
        transports: ['websocket'],
        forceNew: true,
        reconnection: false,
      });
      socket.onAny((event: string, ...args: unknown[]) => {
        const ack = typeof args.at(-1) === 'function' ? (args.pop() as (answer: unknown) => void) : undefined;
        if (ack === undefined) upstream.emit(event, ...args);
        else upstream.emit(event, ...args, (answer: unknown) => ack(this.answer(socket.nsp.name, event, answer)));
      });
      upstream.onAny((event: string, ...args: unknown[]) => socket.emit(event, ...args));
      socket.on('disconnect', () => upstream.close());
      upstream.on('disconnect', () => socket.disconnect(true));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.sockets = sockets;
  }

  async stop(): Promise<void> {
    const { server, sockets } = this;
    this.server = undefined;
    this.sockets = undefined;
    // socket.io's close disconnects its sockets (so each upstream client closes) and closes the HTTP server.
    server?.closeAllConnections();
    if (sockets !== undefined) await new Promise<void>((resolve) => void sockets.close(() => resolve()));
  }

  private answer(namespace: string, event: string, answer: unknown): unknown {
    if (namespace !== '/user/v1' || event !== 'requestQuote' || !isSuccess(answer)) return answer;
    const quote = answer.message as FundingDetailsView;
    this.honestQuotes.push(quote);
    const told = this.lie === undefined ? quote : this.lie(structuredClone(quote));
    this.toldQuotes.push(told);
    return { success: true, message: told };
  }
}

function isSuccess(answer: unknown): answer is { success: true; message: unknown } {
  return typeof answer === 'object' && answer !== null && (answer as { success?: unknown }).success === true;
}

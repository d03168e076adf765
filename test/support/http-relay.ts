import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * Changes a JSON answer of the relayed server: the body to answer instead, or undefined to pass it on as it
 * came. Called for every 200 answer with a JSON body.
 */
export type JsonRewrite = (path: string, body: unknown) => unknown;

/**
 * An HTTP relay in front of a server, as a bad proxy, a plain-HTTP link or a compromised service would be:
 * requests go through unchanged and WebSocket upgrades are piped both ways byte for byte, but any JSON answer
 * can be rewritten on the way back.
 */
export class HttpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Undefined: everything passes through as it came. */
  rewrite: JsonRewrite | undefined;

  constructor(private readonly target: URL) {}

  get url(): string {
    const address = this.server?.address();
    if (address === null || address === undefined || typeof address === 'string')
      throw new Error('relay not listening');
    return `http://127.0.0.1:${String(address.port)}`;
  }

  async start(): Promise<void> {
    const server = createServer((incoming, outgoing) => {
      // No compression, so the answer can be read and rewritten.
      const headers: IncomingHttpHeaders = { ...incoming.headers, host: this.target.host };
      delete headers['accept-encoding'];
      const upstream = request(
        { host: this.target.hostname, port: this.target.port, method: incoming.method, path: incoming.url, headers },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = this.rewritten(incoming.url ?? '/', answer.statusCode, answer.headers, Buffer.concat(chunks));
            const { 'content-length': _length, 'transfer-encoding': _encoding, ...kept } = answer.headers;
            outgoing.writeHead(answer.statusCode ?? 502, { ...kept, 'content-length': body.length });
            outgoing.end(body);
          });
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    });
    server.on('upgrade', (incoming, client: Socket, head: Buffer) => {
      const upstream = connect({ host: this.target.hostname, port: Number(this.target.port) }, () => {
        const lines = [`${incoming.method ?? 'GET'} ${incoming.url ?? '/'} HTTP/1.1`];
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
          lines.push(`${incoming.rawHeaders[index]!}: ${incoming.rawHeaders[index + 1]!}`);
        }
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        upstream.write(head);
        client.pipe(upstream).pipe(client);
      });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    server?.closeAllConnections();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private rewritten(path: string, status: number | undefined, headers: IncomingHttpHeaders, body: Buffer): Buffer {
    if (this.rewrite === undefined || status !== 200 || !String(headers['content-type']).includes('json')) return body;
    const replaced = this.rewrite(path, JSON.parse(body.toString('utf8')) as unknown);
    return replaced === undefined ? body : Buffer.from(JSON.stringify(replaced));
  }
}

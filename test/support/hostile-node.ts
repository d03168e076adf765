/**
 * A chain node that turns hostile on demand, over real HTTP: in front of an honest upstream (the test Bitcoin
 * node, or nothing for a bare JSON-RPC endpoint) it forwards every request while `mode` is 'honest', and
 * otherwise answers as a broken or malicious node would:
 * - 'hang': accepts the request and never answers;
 * - 'huge': answers 200 with a body of `hugeBytes` (200 MB by default), streamed as fast as the client reads;
 * - 'shiftingHashes': Esplora block hashes that are new on every call (tip, heights, and the tip block's height);
 * - 'notJson': 200 with a body that is not JSON;
 * - 'objectResults': JSON-RPC answers whose result is always an empty object, whatever the method.
 * It counts requests and the bytes it managed to send, so a test can tell what a client asked and read.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HostileMode = 'honest' | 'hang' | 'huge' | 'shiftingHashes' | 'notJson' | 'objectResults';

export interface HostileNode {
  /** http://127.0.0.1:PORT: the upstream's paths are served under it unchanged. */
  readonly origin: string;
  mode: HostileMode;
  hugeBytes: number;
  /** Requests since the start, by `METHOD path`. */
  readonly requests: string[];
  /** Bytes of 'huge' answers written to sockets since the start. */
  readonly hugeBytesSent: () => number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const TIP_HEIGHT_OF_SHIFTING_CHAIN = 10_000_000;

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function fakeHash(): string {
  return randomBytes(32).toString('hex');
}

export async function startHostileNode(upstream?: string): Promise<HostileNode> {
  const requests: string[] = [];
  let sent = 0;
  const hanging = new Set<ServerResponse>();
  const state = { mode: 'honest' as HostileMode, hugeBytes: 200 * 1024 * 1024 };

  function sendHuge(response: ServerResponse): void {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    let left = state.hugeBytes;
    const pump = () => {
      while (left > 0 && !response.destroyed) {
        const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= chunk.length;
        sent += chunk.length;
        if (!response.write(chunk)) return;
      }
      if (left <= 0) response.end();
    };
    response.on('drain', pump);
    pump();
  }

  async function forward(request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    if (upstream === undefined) {
      response.writeHead(502).end('no upstream');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    }
    const answer = await fetch(`${upstream}${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const content = Buffer.from(await answer.arrayBuffer());
    response
      .writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' })
      .end(content);
  }

  function shifting(path: string): unknown {
    if (/\/blocks\/tip\/hash$/.test(path) || /\/block-height\/\d+$/.test(path)) return fakeHash();
    if (/\/block\/[0-9a-f]{64}$/.test(path)) return { height: TIP_HEIGHT_OF_SHIFTING_CHAIN };
    return undefined;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await bodyOf(request);
    const path = new URL(request.url ?? '/', 'http://node').pathname;
    requests.push(`${request.method} ${path}`);
    switch (state.mode) {
      case 'hang':
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      case 'huge':
        sendHuge(response);
        return;
      case 'notJson':
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>gateway</html>');
        return;
      case 'objectResults': {
        const call = JSON.parse(body.toString('utf8') || '{}') as { id?: unknown };
        const reply = { jsonrpc: '2.0', id: call.id ?? null, result: {} };
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
        return;
      }
      case 'shiftingHashes': {
        const answer = shifting(path);
        if (answer !== undefined) {
          const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
          response.writeHead(200, { 'Content-Type': 'text/plain' }).end(text);
          return;
        }
        break;
      }
      case 'honest':
        break;
    }
    await forward(request, response, body);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: HostileMode) {
      state.mode = mode;
    },
    get hugeBytes() {
      return state.hugeBytes;
    },
    set hugeBytes(bytes: number) {
      state.hugeBytes = bytes;
    },
    requests,
    hugeBytesSent: () => sent,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/**
 * A chain node that turns hostile on demand, over real HTTP: in front of an honest upstream (the test Bitcoin
 * node, or nothing for a bare JSON-RPC endpoint) it forwards every request while `mode` is 'honest', and
 * otherwise answers as a broken or malicious node would:
 * - 'hang': accepts the request and never answers;
 * - 'huge': answers 200 with a body of `hugeBytes` (200 MB by default), streamed as fast as the client reads;
 * - 'shiftingHashes': Esplora block hashes that are new on every call (tip, heights, and the tip block's height);
 * - 'notJson': 200 with a body that is not JSON;
 * - 'garbledMempool': Esplora's mempool listing (`/mempool/txids`) answered with what is not JSON, the rest honest;
 * - 'objectResults': JSON-RPC answers whose result is always an empty object, whatever the method;
 * - 'wrongAnswer': one call (a JSON-RPC method, or REST paths matching a pattern) answered with `wrongAnswer.answer`
 *   (the JSON-RPC result, or the REST body's JSON), the rest honest.
 * It counts requests and the bytes it managed to send, so a test can tell what a client asked and read, and lists
 * the JSON-RPC methods called.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HostileMode =
  'honest' | 'hang' | 'huge' | 'shiftingHashes' | 'notJson' | 'garbledMempool' | 'objectResults' | 'wrongAnswer';

/** The one call a 'wrongAnswer' node answers wrongly. */
export interface WrongAnswer {
  /** A JSON-RPC method's name, or a pattern of the REST paths answered wrongly. */
  readonly call: string | RegExp;
  /** The JSON-RPC result, or what the REST body is the JSON of. */
  readonly answer: unknown;
}

export interface HostileNode {
  /** http://127.0.0.1:PORT: the upstream's paths are served under it unchanged. */
  readonly origin: string;
  mode: HostileMode;
  hugeBytes: number;
  /** What a 'wrongAnswer' node answers wrongly. */
  wrongAnswer: WrongAnswer;
  /** Requests since the start, by `METHOD path`. */
  readonly requests: string[];
  /** JSON-RPC methods called since the start, in order. */
  readonly rpcMethods: string[];
  /** Calls answered wrongly since the start. */
  readonly wrongAnswers: () => number;
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

/** The JSON-RPC call a request body carries, if it is one. */
function rpcCallOf(body: Buffer): { id?: unknown; method?: unknown } | undefined {
  if (body.length === 0 || body[0] !== 0x7b) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as { id?: unknown; method?: unknown };
  } catch {
    return undefined;
  }
}

function fakeHash(): string {
  return randomBytes(32).toString('hex');
}

export async function startHostileNode(upstream?: string): Promise<HostileNode> {
  const requests: string[] = [];
  const rpcMethods: string[] = [];
  let sent = 0;
  let wrongAnswers = 0;
  const hanging = new Set<ServerResponse>();
  const state = {
    mode: 'honest' as HostileMode,
    hugeBytes: 200 * 1024 * 1024,
    wrongAnswer: { call: '', answer: null } as WrongAnswer,
  };

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

  /** Each wrong answer's JSON bytes, encoded once: a 10 MB string costs to encode, and is sent many times. */
  const encoded = new Map<unknown, Buffer>();
  const answerBytes = (answer: unknown): Buffer => {
    let bytes = encoded.get(answer);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(answer), 'utf8');
      encoded.set(answer, bytes);
    }
    return bytes;
  };

  /** The body answering this request wrongly, in parts, when it is the call to answer wrongly; undefined otherwise. */
  function wrongly(path: string, call: { id?: unknown; method?: unknown } | undefined): Buffer[] | undefined {
    const { call: wrongCall, answer } = state.wrongAnswer;
    if (typeof wrongCall === 'string' && call?.method === wrongCall) {
      const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id ?? null)},"result":`;
      return [Buffer.from(envelope, 'utf8'), answerBytes(answer), Buffer.from('}')];
    }
    if (wrongCall instanceof RegExp && wrongCall.test(path)) return [answerBytes(answer)];
    return undefined;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await bodyOf(request);
    const path = new URL(request.url ?? '/', 'http://node').pathname;
    requests.push(`${request.method} ${path}`);
    const call = rpcCallOf(body);
    if (typeof call?.method === 'string') rpcMethods.push(call.method);
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
      case 'garbledMempool':
        if (path.endsWith('/mempool/txids')) {
          response.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>gateway</html>');
          return;
        }
        break;
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
      case 'wrongAnswer': {
        const parts = wrongly(path, call);
        if (parts !== undefined) {
          wrongAnswers += 1;
          const length = parts.reduce((total, part) => total + part.length, 0);
          response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
          for (const part of parts) response.write(part);
          response.end();
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
    get wrongAnswer() {
      return state.wrongAnswer;
    },
    set wrongAnswer(wrong: WrongAnswer) {
      state.wrongAnswer = wrong;
    },
    requests,
    rpcMethods,
    wrongAnswers: () => wrongAnswers,
    hugeBytesSent: () => sent,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: number | string;
  readonly method: string;
  readonly params?: unknown[];
}

interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: number | string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * A JSON-RPC node that lies: it forwards every call to a real node and answers as it does, except that each
 * `eth_getLogs` answer also carries the logs that `injectedAddress` emitted in the same blocks, as a node that
 * ignores the query's address (or wants to fool the watcher) would.
 */
export class LogInjectingNode {
  private server: Server | undefined;
  /** How many logs of the injected contract the node has slipped into its answers so far. */
  injectedLogs = 0;

  constructor(
    private readonly upstreamUrl: string,
    private readonly injectedAddress: string,
  ) {}

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      this.answer(request)
        .then((body) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(body);
        })
        .catch((error: unknown) => {
          response.writeHead(502, { 'content-type': 'text/plain' });
          response.end(error instanceof Error ? error.message : String(error));
        });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest | JsonRpcRequest[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const answers = await Promise.all(calls.map((call) => this.call(call)));
    return JSON.stringify(Array.isArray(parsed) ? answers : answers[0]);
  }

  private async call(call: JsonRpcRequest): Promise<JsonRpcResponse> {
    const answer = await this.forward(call);
    if (call.method !== 'eth_getLogs' || !Array.isArray(answer.result)) return answer;
    const filter = (call.params?.[0] ?? {}) as Record<string, unknown>;
    const extra = await this.forward({ ...call, params: [{ ...filter, address: this.injectedAddress }] });
    const injected = Array.isArray(extra.result) ? (extra.result as unknown[]) : [];
    this.injectedLogs += injected.length;
    return { ...answer, result: [...(answer.result as unknown[]), ...injected] };
  }

  private async forward(call: JsonRpcRequest): Promise<JsonRpcResponse> {
    const response = await fetch(this.upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return (await response.json()) as JsonRpcResponse;
  }
}

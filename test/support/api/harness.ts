/** A read API over a fresh, seeded store of either kind, and assertions on its raw responses. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FastifyInstance, FastifyServerOptions, LightMyRequestResponse } from 'fastify';
import { buildApiServer } from '../../../src/api/server.js';
import type { Store } from '../../../src/store/store.js';
import { seedStore, type Seed } from '../fixtures.js';
import { openFreshStore, type StoreKind } from '../stores.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export interface OpenApi {
  app: FastifyInstance;
  store: Store;
  close(): Promise<void>;
}

export async function openApi(kind: StoreKind, seed: Seed, logger?: FastifyServerOptions['logger']): Promise<OpenApi> {
  const fresh = await openFreshStore(kind);
  try {
    await seedStore(fresh.store, seed);
    const app = await buildApiServer({ store: fresh.store, logger });
    return {
      app,
      store: fresh.store,
      async close() {
        await app.close();
        await fresh.dispose();
      },
    };
  } catch (error) {
    await fresh.dispose();
    throw error;
  }
}

/** 200, JSON, and the exact bytes of `expected` serialized in the key order it was written in. */
export function assertJson(response: LightMyRequestResponse, expected: unknown): void {
  assert.equal(response.statusCode, 200, `expected 200, got ${response.statusCode}: ${response.body}`);
  assert.equal(response.headers['content-type'], JSON_TYPE);
  assert.deepEqual(JSON.parse(response.body), expected);
  assert.equal(response.body, JSON.stringify(expected), 'same fields, but not in the expected order');
}

/** A refusal: the status and the bare token as text, no quotes, no newline. */
export function assertToken(response: LightMyRequestResponse, status: number, token: string): void {
  assert.equal(
    response.statusCode,
    status,
    `expected ${status} ${token}, got ${response.statusCode}: ${response.body}`,
  );
  assert.equal(response.headers['content-type'], TEXT_TYPE);
  assert.equal(response.body, token);
}

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given over a socket and reads the response until the server closes it:
 * for requests an HTTP client would refuse to send or would rewrite first. The request must ask for
 * `Connection: close` (or be one the server refuses); the socket is not half-closed first, because
 * Node's server drops a connection whose client has ended before the response is written.
 */
export function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = text.slice(0, headEnd).split('\r\n');
      const headers = new Map(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(headEnd + 4) });
    });
  });
}

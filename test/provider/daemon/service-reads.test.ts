/** The daemon's reads of the service: bounded in size and time whatever the service (or a proxy) answers. */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { readServiceJson } from '../../../src/provider/daemon/service-reads.js';

let server: Server;
let serviceUrl: string;
const answers: Record<string, (response: ServerResponse) => void> = {
  '/api/orders/known': (response) => response.writeHead(200).end('{"state":"Funded"}'),
  '/api/orders/missing': (response) => response.writeHead(404).end('OrderNotFound'),
  '/api/orders/busy': (response) => response.writeHead(503).end('ServiceUnavailable'),
  // No content-length: the size is found while reading.
  '/api/orders/huge': (response) => {
    response.writeHead(200);
    response.end(`"${'x'.repeat(100 * 1024)}"`);
  },
  '/api/orders/silent': () => {},
};

before(async () => {
  server = createServer((request, response) => answers[request.url ?? '']?.(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const read = (path: string) => readServiceJson({ serviceUrl, readTimeoutMs: 300 }, path);

test('a 200 is its parsed JSON, a 404 is not-found, another status throws', async () => {
  assert.deepEqual(await read('/api/orders/known'), { state: 'Funded' });
  assert.equal(await read('/api/orders/missing'), 'not-found');
  await assert.rejects(read('/api/orders/busy'), /HTTP 503/);
});

test('an answer past 64 KiB is not read whole, and a silent service times out', async () => {
  await assert.rejects(read('/api/orders/huge'), /larger than 65536 bytes/);
  await assert.rejects(read('/api/orders/silent'), /no answer within 300 ms/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { ServiceMetrics } from '../../src/engine/operations/metrics.js';
import type { Store } from '../../src/store/store.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';

let fresh: FreshStore;
let app: FastifyInstance;
let metrics: ServiceMetrics;

before(async () => {
  fresh = await openFreshStore('sqlite');
  const store: Store = fresh.store;
  metrics = new ServiceMetrics({ store });
  app = await buildApiServer({ store, metrics, readiness: async () => ({ ready: true }) });
});

after(async () => {
  await app.close();
  metrics.stop();
  await fresh.dispose();
});

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: { enum?: string[] } }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

async function fetchDocument(): Promise<OpenApiDocument> {
  const response = await app.inject({ url: '/api/openapi.json' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  return JSON.parse(response.body) as OpenApiDocument;
}

/** Every path and its methods, read from Fastify's route tree (`printRoutes`), as `METHOD /path/:param`. */
function registeredRoutes(): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]*)\)$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of match[3]!.split(', ')) routes.add(`${method} ${stack.join('')}`);
  }
  return routes;
}

test('the OpenAPI document is a valid OpenAPI 3.1 document', async () => {
  const document = await fetchDocument();
  assert.equal(document.openapi, '3.1.0');
  const result = await new Validator().validate(document as unknown as Record<string, unknown>);
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
});

test('the document lists every GET route the server registers, apart from the reference pages themselves', async () => {
  const document = await fetchDocument();
  const documented = Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .sort();
  const served = [...registeredRoutes()]
    .filter((route) => route.startsWith('GET ') && !route.startsWith('GET /docs'))
    .sort();
  for (const route of ['GET /api/orders/:id/refund', 'GET /readyz', 'GET /metrics'])
    assert.ok(served.includes(route), route);
  assert.deepEqual(documented, served);
  // Every other method of a documented path is the 405 refusal the document describes, not a route of its own.
  for (const route of registeredRoutes()) {
    const [method, url] = route.split(' ') as [string, string];
    if (method === 'GET' || method === 'HEAD' || url.startsWith('/docs')) continue;
    assert.ok(served.includes(`GET ${url}`), `${route} has no GET`);
  }
});

test('every operation has an id, its path parameters, and its refusal tokens as text/plain', async () => {
  const document = await fetchDocument();
  const order = document.paths['/api/orders/{id}']?.['get'];
  assert.ok(order !== undefined);
  assert.equal(order.operationId, 'getOrder');
  assert.deepEqual(
    order.parameters?.map(({ name, in: where }) => `${where}:${name}`),
    ['path:id'],
  );
  assert.deepEqual(order.responses['400']?.content?.['text/plain']?.schema.enum, ['InvalidOrderId', 'BadRequest']);
  assert.deepEqual(order.responses['404']?.content?.['text/plain']?.schema.enum, ['OrderNotFound']);
  assert.deepEqual(order.responses['503']?.content?.['text/plain']?.schema.enum, ['ServiceUnavailable']);
  const find = document.paths['/api/orders']?.['get'];
  assert.deepEqual(
    find?.parameters?.map(({ name, in: where }) => `${where}:${name}`),
    ['query:invoiceHash', 'query:onchainTicker'],
  );
  assert.deepEqual(find?.responses['400']?.content?.['text/plain']?.schema.enum, [
    'InvalidInvoiceHash',
    'InvalidOnchainTicker',
    'BadRequest',
  ]);
  const refund = document.paths['/api/orders/{id}/refund']?.['get'];
  assert.deepEqual(
    refund?.parameters?.map(({ name, in: where }) => `${where}:${name}`),
    ['query:funder', 'path:id'],
  );
  assert.deepEqual(refund?.responses['400']?.content?.['text/plain']?.schema.enum, [
    'InvalidOrderId',
    'InvalidFunder',
    'OrderHasNoSlots',
    'BadRequest',
  ]);
  assert.deepEqual(refund?.responses['404']?.content?.['text/plain']?.schema.enum, ['OrderNotFound', 'SlotNotFound']);
  const ids = Object.values(document.paths).flatMap((item) =>
    Object.values(item).map((operation) => operation.operationId),
  );
  assert.ok(
    ids.every((id) => typeof id === 'string'),
    'an operation without an operationId',
  );
  assert.equal(new Set(ids).size, ids.length, 'operationIds repeat');
});

test('the interactive reference is served by the service itself, with nothing from another host', async () => {
  const page = await app.inject({ url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(page.headers['content-type'] as string, /^text\/html/);
  const csp = page.headers['content-security-policy'] as string;
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /https?:/);
  for (const match of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
    const asset = match[1]!;
    assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} comes from another host`);
    const url = new URL(asset, 'http://127.0.0.1/docs/').pathname;
    assert.equal((await app.inject({ url })).statusCode, 200, url);
  }
  const initializer = await app.inject({ url: '/docs/static/swagger-initializer.js' });
  assert.equal(initializer.statusCode, 200);
  // The public validator badge would send the document to another host.
  assert.match(initializer.body, /validatorUrl: null/);
});

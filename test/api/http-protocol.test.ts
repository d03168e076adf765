import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildOrder, configuration, hashOfInvoice } from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { JSON_TYPE, TEXT_TYPE, assertToken, openApi, rawRequest, type OpenApi } from '../support/api/harness.js';

const order = buildOrder({ label: 'protocol', state: 'PartiallyFunded', funds: [10000n] });
const { id } = order.record;

/** One working URL per endpoint of the interface. */
const ENDPOINT_URLS = [
  '/api/markets',
  '/api/markets/requirements',
  '/api/markets/BTC_LBTC/requirements',
  `/api/orders?invoiceHash=${hashOfInvoice(order.record.invoice)}`,
  `/api/orders/${id}`,
  `/api/orders/${id}/state`,
  `/api/orders/${id}/fundDetails`,
  `/api/orders/${id}/transactions`,
  `/api/orders/${id}/refund`,
];

const UNKNOWN_PATHS = [
  '/api',
  '/api/',
  '/api/order',
  '/API/markets',
  '/api/Markets',
  '/api/markets/BTC_LBTC',
  '/api/markets/requirements/extra',
  `/api/orders/${id}/State`,
  `/api/orders/${id}/refund/now`,
  '/api/v1/markets',
  '/favicon.ico',
];

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Some methods with bodies that would each fail to parse, or exceed the body limit, if read.
const REFUSED_REQUESTS = [
  { method: 'POST', headers: { 'content-type': 'application/json' }, payload: '{"unterminated' },
  { method: 'POST', headers: { 'content-type': 'a\u0001b' }, payload: 'x' },
  { method: 'PUT', headers: { 'content-type': 'application/x-unknown' }, payload: Buffer.alloc(2 * 1024 * 1024) },
  { method: 'DELETE' },
  { method: 'PATCH', headers: { 'content-type': 'application/json' }, payload: 'null' },
  { method: 'OPTIONS' },
  { method: 'TRACE' },
  { method: 'QUERY' },
  { method: 'PROPFIND', headers: { 'content-type': 'text/xml' }, payload: '<propfind/>' },
  { method: 'MKCOL' },
] as const;

for (const kind of STORE_KINDS) {
  describe(`HTTP behaviour on ${kind}`, { skip: skipReason(kind) }, () => {
    let api: OpenApi;
    before(async () => {
      api = await openApi(kind, { configuration: configuration(), orders: [order.record] });
    });
    after(() => api.close());

    test('every endpoint answers GET with JSON', async () => {
      for (const url of ENDPOINT_URLS) {
        const response = await api.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.headers['content-type'], JSON_TYPE, url);
        assert.doesNotThrow(() => JSON.parse(response.body), url);
      }
    });

    test('HEAD works wherever GET works: same status and type, no body', async () => {
      for (const url of [...ENDPOINT_URLS, '/api/orders/nope', '/api/markets/X/requirements']) {
        const get = await api.app.inject({ method: 'GET', url });
        const head = await api.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, get.statusCode, url);
        assert.equal(head.headers['content-type'], get.headers['content-type'], url);
        assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), url);
        assert.equal(head.body, '', url);
      }
    });

    test('a trailing slash reaches the same endpoint', async () => {
      for (const url of [`/api/orders/${id}/state/`, '/api/markets/', '/api/markets/btc_lbtc/requirements/']) {
        const withSlash = await api.app.inject({ method: 'GET', url });
        const without = await api.app.inject({ method: 'GET', url: url.slice(0, -1) });
        assert.equal(withSlash.statusCode, 200, url);
        assert.equal(withSlash.body, without.body, url);
      }
    });

    test('404 NotFound for unknown paths, whatever the method and body', async () => {
      for (const url of UNKNOWN_PATHS) {
        assertToken(await api.app.inject({ method: 'GET', url }), 404, 'NotFound');
        const head = await api.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, 404, url);
        const post = await api.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload: '{"unterminated',
        });
        assertToken(post, 404, 'NotFound');
      }
    });

    test('405 MethodNotAllowed with Allow: GET, HEAD on every endpoint, before any body is read', async () => {
      for (const url of ENDPOINT_URLS) {
        for (const request of REFUSED_REQUESTS) {
          const response = await api.app.inject({ url, ...request });
          assertToken(response, 405, 'MethodNotAllowed');
          assert.equal(response.headers.allow, 'GET, HEAD', `${request.method} ${url}`);
        }
      }
    });

    test('405 also for a known path with an invalid id: the method is wrong whatever the id', async () => {
      const response = await api.app.inject({ method: 'POST', url: '/api/orders/nope/state' });
      assertToken(response, 405, 'MethodNotAllowed');
    });

    test('400 BadRequest for a path with undecodable percent-encoding', async () => {
      for (const url of ['/api/orders/%E0%A4%A', '/api/orders/%zz/state', '/api/markets/%/requirements']) {
        assertToken(await api.app.inject({ method: 'GET', url }), 400, 'BadRequest');
      }
    });

    test('every response carries a fresh request id', async () => {
      const responses = await Promise.all(
        [ENDPOINT_URLS[0], '/api/orders/nope', '/nowhere', '/api/orders/%zz'].map((url) =>
          api.app.inject({ method: 'GET', url }),
        ),
      );
      responses.push(await api.app.inject({ method: 'DELETE', url: '/api/markets' }));
      const ids = responses.map((response) => String(response.headers['x-request-id']));
      for (const requestId of ids) assert.match(requestId, UUID_PATTERN);
      assert.equal(new Set(ids).size, ids.length);
    });

    test('a client-supplied request id is not trusted', async () => {
      const response = await api.app.inject({
        method: 'GET',
        url: '/api/markets',
        headers: { 'x-request-id': 'injected\nline', 'request-id': 'forged' },
      });
      assert.match(String(response.headers['x-request-id']), UUID_PATTERN);
    });
  });

  describe(`unexpected failures on ${kind}`, { skip: skipReason(kind) }, () => {
    const logLines: Record<string, unknown>[] = [];
    let api: OpenApi;
    before(async () => {
      api = await openApi(
        kind,
        { configuration: configuration(), orders: [order.record] },
        {
          level: 'info',
          stream: { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
        },
      );
      // A store that has gone away is a real failure every endpoint must survive.
      await api.store.close();
    });
    after(() => api.close());

    test('500 with a fixed sentence, the failure logged under the request id', async () => {
      for (const url of ENDPOINT_URLS) {
        const response = await api.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 500, url);
        assert.equal(response.headers['content-type'], TEXT_TYPE);
        assert.equal(response.body, 'Something went wrong');
        const requestId = response.headers['x-request-id'];
        const failure = logLines.find((line) => line['reqId'] === requestId && line['level'] === 50);
        assert.ok(failure, `no error logged for ${url} under ${String(requestId)}`);
        assert.equal(typeof (failure['err'] as { message?: unknown } | undefined)?.message, 'string');
      }
    });

    test('input errors are still answered with their tokens, before the store is asked', async () => {
      assertToken(await api.app.inject({ method: 'GET', url: '/api/orders/nope' }), 400, 'InvalidOrderId');
      assertToken(await api.app.inject({ method: 'GET', url: '/api/orders' }), 400, 'InvalidInvoiceHash');
    });
  });
}

describe('over a real socket', { skip: skipReason('sqlite') }, () => {
  let api: OpenApi;
  let base: string;
  let port: number;
  before(async () => {
    api = await openApi('sqlite', { configuration: configuration(), orders: [order.record] });
    base = await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(base).port);
  });
  after(() => api.close());

  test('fetch reads an order, its state and the markets', async () => {
    const orderResponse = await fetch(`${base}/api/orders/${id.toUpperCase()}`);
    assert.equal(orderResponse.status, 200);
    assert.equal(orderResponse.headers.get('content-type'), JSON_TYPE);
    assert.match(orderResponse.headers.get('x-request-id') ?? '', UUID_PATTERN);
    const body = (await orderResponse.json()) as { id: string; amountPaid: string };
    assert.equal(body.id, id);
    assert.equal(body.amountPaid, '0.0001');

    const stateResponse = await fetch(`${base}/api/orders/${id}/state`);
    assert.equal(await stateResponse.text(), '"PartiallyFunded"');

    const markets = await fetch(`${base}/api/markets`);
    assert.deepEqual(await markets.json(), [
      { onchainTicker: 'BTC', offchainTicker: 'LBTC', market: 'BTC_LBTC' },
      { onchainTicker: 'ETH', offchainTicker: 'LBTC', market: 'ETH_LBTC' },
    ]);
  });

  test('fetch gets tokens as bare text', async () => {
    const notFound = await fetch(`${base}/api/orders/${id}/nothing`);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('content-type'), TEXT_TYPE);
    assert.equal(await notFound.text(), 'NotFound');

    const refused = await fetch(`${base}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not": "read',
    });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get('allow'), 'GET, HEAD');
    assert.equal(await refused.text(), 'MethodNotAllowed');

    const head = await fetch(`${base}/api/markets`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('requests Node cannot parse get a 4xx token, not a JSON error', async () => {
    const garbage = await rawRequest(port, 'NOT AN HTTP REQUEST\r\n\r\n');
    assert.equal(garbage.status, 400);
    assert.equal(garbage.headers.get('content-type'), TEXT_TYPE);
    assert.equal(garbage.body, 'BadRequest');

    const longUrl = await rawRequest(port, `GET /api/orders/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.equal(longUrl.status, 431);
    assert.equal(longUrl.body, 'BadRequest');

    const badEncoding = await rawRequest(port, 'GET /api/orders/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(badEncoding.status, 400);
    assert.equal(badEncoding.headers.get('content-type'), TEXT_TYPE);
    assert.equal(badEncoding.body, 'BadRequest');
  });

  test('dot segments are not resolved by the server: an id of ".." is just an invalid id', async () => {
    const response = await rawRequest(
      port,
      'GET /api/orders/../state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    assert.equal(response.status, 400);
    assert.equal(response.body, 'InvalidOrderId');
  });

  test('an id as long as a request line can carry is InvalidOrderId', async () => {
    const response = await fetch(`${base}/api/orders/${'a'.repeat(15_000)}`);
    assert.equal(response.status, 400);
    assert.equal(await response.text(), 'InvalidOrderId');
  });
});

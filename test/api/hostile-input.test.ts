/**
 * Properties over hostile requests: whatever the path, query or method, the API answers 2xx or 4xx
 * with the token the spec names, never a 500. Each expected answer is computed here from the
 * request alone, by a model of the spec's rules.
 */
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import type { LightMyRequestResponse } from 'fastify';
import { buildOrder, configuration } from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { JSON_TYPE, TEXT_TYPE, openApi, rawRequest, type OpenApi, type RawResponse } from '../support/api/harness.js';

const RUN = { numRuns: 200, seed: PROPERTY_SEED };

const order = buildOrder({ label: 'hostile', state: 'WaitingForFundingTx' });
const ORDER_ID = order.record.id;
const INVOICE_HASH = order.record.invoiceHash;
const OFFERED_MARKETS = ['BTC_LBTC', 'ETH_LBTC'];
const OFFERED_TICKERS = ['BTC', 'ETH'];
const ORDER_SUFFIXES = ['', '/state', '/fundDetails', '/transactions', '/refund'];
const HTML_TYPE = 'text/html; charset=utf-8';
const TOKENS = new Set([
  'InvalidOrderId',
  'OrderNotFound',
  'InvalidInvoiceHash',
  'InvalidOnchainTicker',
  'InvalidMarket',
  'NoQuoteProvidersForTheRequestedMarket',
  'NoQuoteProvidersAvailable',
  'NotFound',
  'MethodNotAllowed',
  'BadRequest',
]);

const SQL_FRAGMENTS = [
  "' OR '1'='1",
  "'; DROP TABLE orders; --",
  '" OR ""="',
  '1; SELECT pg_sleep(5)',
  "x' UNION SELECT * FROM providers --",
  '\\x00',
  '$1',
  '%',
  '%%',
  '%00',
  '%E0%A4%A',
  '%C0%AF',
  '%zz',
  '%2F',
  '%uD800',
  '\u0000',
  '\u202e',
  '\ud83d\ude00',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'null',
  '[]',
  '{"$gt":""}',
];

/** Text of every kind: any Unicode, SQL and encoding tricks, and segments far longer than any id. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 80 }),
  fc.constantFrom(...SQL_FRAGMENTS),
  fc
    .tuple(fc.constantFrom('a', '0', '-', 'é', '\u0000', '😀'), fc.integer({ min: 100, max: 5000 }))
    .map(([char, times]) => char.repeat(times)),
);

/** UUIDs in the spellings clients use; almost all are of no order, one is of the seeded order. */
const uuidSpellings = fc
  .oneof(fc.uuid(), fc.constant(ORDER_ID))
  .chain((uuid) =>
    fc.constantFrom(uuid, uuid.toUpperCase(), uuid.replaceAll('-', ''), uuid.replaceAll('-', '').toUpperCase()),
  );

const UUID_FORMS = [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, /^[0-9a-f]{32}$/i];

function canonicalUuid(text: string): string | undefined {
  if (!UUID_FORMS.some((form) => form.test(text))) return undefined;
  const hex = text.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * "." and ".." are dot segments: a URL client resolves them before sending (the test client
 * does too), so they never reach a server as ids.
 */
function isDotSegment(text: string): boolean {
  return text === '.' || text === '..';
}

/** A 2xx or 4xx with a known token as text, JSON, or the tracker page (`/` and `/orders/:id`). */
function assertAnsweredWith(status: number, contentType: unknown, body: string, context: string): void {
  assert.ok(status >= 200 && status < 500, `${context}: ${status} ${body}`);
  if (contentType === HTML_TYPE) {
    assert.equal(status, 200, context);
    assert.match(body, /^<!doctype html>/i, context);
  } else if (contentType === TEXT_TYPE) {
    assert.ok(TOKENS.has(body), `${context}: unexpected text body ${JSON.stringify(body)}`);
  } else if (body !== '') {
    assert.equal(contentType, JSON_TYPE, context);
    assert.doesNotThrow(() => JSON.parse(body), context);
  }
}

function assertAnswered(response: LightMyRequestResponse, context: string): void {
  assertAnsweredWith(response.statusCode, response.headers['content-type'], response.body, context);
}

function assertRawAnswered(response: RawResponse, context: string): void {
  assertAnsweredWith(response.status, response.headers.get('content-type'), response.body, context);
}

function assertAnswer(response: LightMyRequestResponse, status: number, token: string | undefined, context: string) {
  assertAnswered(response, context);
  assert.equal(response.statusCode, status, `${context}: ${response.body}`);
  if (token !== undefined) assert.equal(response.body, token, context);
}

for (const kind of STORE_KINDS) {
  describe(`hostile input on ${kind}`, { skip: skipReason(kind) }, () => {
    let api: OpenApi;
    before(async () => {
      api = await openApi(kind, { configuration: configuration(), orders: [order.record] });
    });
    after(() => api.close());

    const get = (url: string) => api.app.inject({ method: 'GET', url });

    async function listeningPort(): Promise<number> {
      const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
      return Number(new URL(address).port);
    }

    test('any order id on any order route: InvalidOrderId, OrderNotFound or the order', async () => {
      const ids = fc.oneof(hostileText, uuidSpellings).filter((id) => id !== '' && !isDotSegment(id));
      await fc.assert(
        fc.asyncProperty(ids, fc.constantFrom(...ORDER_SUFFIXES), async (id, suffix) => {
          const url = `/api/orders/${encodeURIComponent(id)}${suffix}`;
          const canonical = canonicalUuid(id);
          const response = await get(url);
          if (canonical === undefined) assertAnswer(response, 400, 'InvalidOrderId', url);
          else if (canonical === ORDER_ID) assertAnswer(response, 200, undefined, url);
          else assertAnswer(response, 404, 'OrderNotFound', url);
        }),
        RUN,
      );
    });

    test('any market name: its requirements when offered in any case, else InvalidMarket', async () => {
      const names = fc.oneof(
        hostileText,
        fc.mixedCase(fc.constantFrom(...OFFERED_MARKETS, 'TBTC_LTBTC', 'BTC', 'LBTC')),
      );
      await fc.assert(
        fc.asyncProperty(
          names.filter((name) => name !== '' && !isDotSegment(name)),
          async (name) => {
            const url = `/api/markets/${encodeURIComponent(name)}/requirements`;
            const offered = OFFERED_MARKETS.includes(name.toUpperCase());
            const response = await get(url);
            assertAnswer(response, offered ? 200 : 400, offered ? undefined : 'InvalidMarket', url);
            if (offered) assert.equal(JSON.parse(response.body).market, name.toUpperCase());
          },
        ),
        RUN,
      );
    });

    test('any Get Orders query: InvalidInvoiceHash, then InvalidOnchainTicker, else the matching orders', async () => {
      const hashes = fc.oneof(
        fc.mixedCase(fc.constant(INVOICE_HASH)),
        fc.stringMatching(/^[0-9a-fA-F]{64}$/),
        fc.stringMatching(/^[0-9a-fA-F]{60,70}$/),
        hostileText,
      );
      const tickers = fc.oneof(fc.mixedCase(fc.constantFrom('BTC', 'ETH', 'TBTC', 'LBTC', 'BTC_LBTC')), hostileText);
      const pair = fc.oneof(
        fc.tuple(fc.constant('invoiceHash'), hashes),
        fc.tuple(fc.constant('onchainTicker'), tickers),
        fc.tuple(fc.oneof(hostileText, fc.constantFrom('invoicehash', 'INVOICEHASH', 'invoiceHash[]')), hostileText),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(pair, { maxLength: 5 }), async (pairs) => {
          const query = pairs
            .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
            .join('&');
          const url = `/api/orders?${query}`;
          const given = (name: string) => pairs.filter(([key]) => key === name).map(([, value]) => value);
          const [hash, ...moreHashes] = given('invoiceHash');
          const [ticker, ...moreTickers] = given('onchainTicker');
          const response = await get(url);

          if (hash === undefined || moreHashes.length > 0 || !/^[0-9a-f]{64}$/i.test(hash)) {
            assertAnswer(response, 400, 'InvalidInvoiceHash', url);
          } else if (
            ticker !== undefined &&
            (moreTickers.length > 0 || !OFFERED_TICKERS.includes(ticker.toUpperCase()))
          ) {
            assertAnswer(response, 400, 'InvalidOnchainTicker', url);
          } else {
            assertAnswer(response, 200, undefined, url);
            const matches =
              hash.toLowerCase() === INVOICE_HASH && (ticker === undefined || ticker.toUpperCase() === 'BTC');
            assert.deepEqual(
              (JSON.parse(response.body) as { id: string }[]).map((item) => item.id),
              matches ? [ORDER_ID] : [],
              url,
            );
          }
        }),
        RUN,
      );
    });

    test('raw, unencoded garbage in paths and queries is answered, never a 500', async () => {
      // Over a real socket: an HTTP client would reject or rewrite much of this before sending it.
      const port = await listeningPort();
      const prefixes = fc.constantFrom(
        '/',
        '/api/',
        '/api/markets/',
        '/api/orders/',
        `/api/orders/${ORDER_ID}/`,
        '/api/orders?invoiceHash=',
        `/api/orders?invoiceHash=${INVOICE_HASH}&onchainTicker=`,
      );
      const rawChars = fc.oneof(
        fc.constantFrom('%', '%2', '%ZZ', '%00', '%FF', '%C3', '/', '//', '?', '&', '=', '#', ';', '+', ' ', '\t'),
        fc.constantFrom('..', '.', '~', '\\', '"', "'", '<', '>', '{', '}', '|', '^', '`', '[', ']', '\r\n'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
      );
      const suffix = fc.array(rawChars, { maxLength: 30 }).map((parts) => parts.join(''));
      await fc.assert(
        fc.asyncProperty(prefixes, suffix, async (prefix, rest) => {
          const target = `${prefix}${rest}`;
          const request = Buffer.from(`GET ${target} HTTP/1.1\r\nHost: lnswap\r\nConnection: close\r\n\r\n`);
          assertRawAnswered(await rawRequest(port, request), JSON.stringify(target));
        }),
        RUN,
      );
    });

    test('any method other than GET and HEAD on a known path is 405, whatever it carries', async () => {
      const knownPaths = fc.constantFrom(
        '/api/markets',
        '/api/markets/requirements',
        '/api/markets/btc_lbtc/requirements',
        '/api/orders',
        ...ORDER_SUFFIXES.map((suffix) => `/api/orders/${ORDER_ID}${suffix}`),
      );
      const methods = fc.constantFrom(...METHODS.filter((method) => method !== 'GET' && method !== 'HEAD'));
      const contentTypes = fc.option(
        fc.oneof(fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', 'a/b; c=d'), hostileText),
        { nil: undefined },
      );
      await fc.assert(
        fc.asyncProperty(
          methods,
          knownPaths,
          contentTypes,
          fc.string({ unit: 'binary', maxLength: 200 }),
          async (method, url, contentType, payload) => {
            const headers =
              contentType === undefined ? {} : { 'content-type': contentType.replace(/[^\t\x20-\x7e]/g, '') };
            const response = await api.app.inject({ method: method as 'POST', url, headers, payload });
            assertAnswer(response, 405, 'MethodNotAllowed', `${method} ${url}`);
            assert.equal(response.headers.allow, 'GET, HEAD');
          },
        ),
        RUN,
      );
    });
  });
}

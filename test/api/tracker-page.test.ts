import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';

let fresh: FreshStore;
let app: FastifyInstance;

before(async () => {
  fresh = await openFreshStore('sqlite');
  app = await buildApiServer({ store: fresh.store });
});

after(async () => {
  await app.close();
  await fresh.dispose();
});

test('the page is one HTML document at each of its paths, under a policy that allows nothing from another host', async () => {
  const bodies = new Set<string>();
  for (const url of ['/', '/orders/4b4eccc0-50c9-4b5d-90a8-f1c857ffec6e', '/markets']) {
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 200, url);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(response.headers['content-security-policy']), /default-src 'self'/);
    assert.doesNotMatch(response.body, /https?:\/\//, 'nothing loaded from another host');
    bodies.add(response.body);
  }
  assert.equal(bodies.size, 1);
});

test('assets carry an ETag and no-cache, and a matching If-None-Match gets 304 without a body', async () => {
  for (const [url, type] of [
    ['/', 'text/html; charset=utf-8'],
    ['/assets/tracker.js', 'text/javascript; charset=utf-8'],
    ['/assets/tracker.css', 'text/css; charset=utf-8'],
    ['/assets/socket.io.esm.min.js', 'text/javascript; charset=utf-8'],
    ['/assets/qrcode.mjs', 'text/javascript; charset=utf-8'],
  ] as const) {
    const first = await app.inject({ url });
    assert.equal(first.statusCode, 200, url);
    assert.equal(first.headers['content-type'], type, url);
    assert.equal(first.headers['cache-control'], 'no-cache', url);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]{22}"$/);
    const again = await app.inject({ url, headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304, url);
    assert.equal(again.body, '');
    const changed = await app.inject({ url, headers: { 'if-none-match': '"other"' } });
    assert.equal(changed.statusCode, 200, url);
  }
});

test('every module the page imports is served, so a renamed file cannot break the page unnoticed', async () => {
  const page = await app.inject({ url: '/' });
  const pending = [...page.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const url = pending.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 200, url);
    if (!url.endsWith('.js') || url.includes('.min.')) continue;
    for (const [, target] of response.body.matchAll(/^import .* from '([^']+)';$/gm)) {
      pending.push(new URL(target!, `http://page${url}`).pathname);
    }
  }
  assert.ok(seen.has('/assets/socket.io.esm.min.js') && seen.has('/assets/qrcode.mjs'), [...seen].join(' '));
});

test('an unknown asset is NotFound, and only GET and HEAD are answered', async () => {
  const missing = await app.inject({ url: '/assets/nothing.js' });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.body, 'NotFound');
  assert.equal((await app.inject({ method: 'HEAD', url: '/' })).statusCode, 200);
  assert.equal((await app.inject({ method: 'POST', url: '/' })).statusCode, 405);
});

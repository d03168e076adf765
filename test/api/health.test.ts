import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { buildApiServer } from '../../src/api/server.js';
import { NodeCallFailed } from '../../src/chains/node-faults.js';
import { ChainHealth } from '../../src/engine/chain-following/chain-health.js';
import { Readiness } from '../../src/engine/operations/readiness.js';
import { ServiceMetrics } from '../../src/engine/operations/metrics.js';
import { StoreOutage } from '../../src/store/availability.js';
import { guardStore } from '../../src/store/guarded-store.js';
import { openStore } from '../../src/store/open.js';
import { eventually } from '../support/eventually.js';
import { openFreshStore, skipReason } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const TEXT_TYPE = 'text/plain; charset=utf-8';

test('/healthz answers OK and /readyz Ready when there is nothing to follow', async () => {
  const fresh = await openFreshStore('sqlite');
  const store = fresh.store;
  const app = await buildApiServer({ store, readiness: () => new Readiness(store, []).check() });
  try {
    for (const [url, body] of [
      ['/healthz', 'OK'],
      ['/readyz', 'Ready'],
    ] as const) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], TEXT_TYPE);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.body, body);
    }
    assert.equal((await app.inject({ method: 'POST', url: '/readyz' })).statusCode, 405);
  } finally {
    await app.close();
    await fresh.dispose();
  }
});

test(
  '/readyz answers 503 StoreUnavailable while PostgreSQL is unreachable, and Ready once it returns',
  { skip: skipReason('postgres') },
  async () => {
    const fresh = await openFreshStore('postgres');
    const target = new URL(fresh.url);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const proxied = new URL(fresh.url);
    proxied.host = `127.0.0.1:${proxy.listeningPort}`;
    const inner = await openStore(proxied.toString());
    const outage = new StoreOutage(
      () => inner.getOrder('00000000-0000-0000-0000-000000000000'),
      pino({ enabled: false }),
      50,
    );
    const store = guardStore(inner, outage);
    const readiness = new Readiness(store, [], 1_000);
    const metrics = new ServiceMetrics({ store });
    const app = await buildApiServer({ store, metrics, readiness: () => readiness.check() });
    try {
      assert.equal((await app.inject({ url: '/readyz' })).body, 'Ready');
      await proxy.cut();
      const down = await app.inject({ url: '/readyz' });
      assert.equal(down.statusCode, 503);
      assert.equal(down.headers['content-type'], TEXT_TYPE);
      assert.equal(down.body, 'StoreUnavailable');
      // The process itself still answers, and so do its metrics, without what only the store knows.
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
      const scrape = await app.inject({ url: '/metrics' });
      assert.equal(scrape.statusCode, 200);
      assert.match(scrape.body, /^lnswap_http_requests_total\{method="GET",route="\/readyz",status="503"\} 1$/m);
      assert.doesNotMatch(scrape.body, /^lnswap_orders\{/m);
      await proxy.restore();
      await eventually(async () => {
        const up = await app.inject({ url: '/readyz' });
        assert.equal(up.statusCode, 200);
        assert.equal(up.body, 'Ready');
      }, 'the store to answer again');
    } finally {
      await app.close();
      metrics.stop();
      outage.stop();
      await inner.close().catch(() => undefined);
      await proxy.stop();
      await fresh.dispose();
    }
  },
);

test('/readyz follows the watcher from its state: not watched yet, behind, within its lag, a node down, misbehaving or silent', async () => {
  const fresh = await openFreshStore('sqlite');
  const { store } = fresh;
  let now = 1_000_000;
  const health = new ChainHealth('ethereum', pino({ level: 'silent' }), () => now);
  const readiness = new Readiness(
    store,
    [{ chain: 'ethereum', health, staleAfterMs: 60_000, allowedLagBlocks: 5 }],
    2_000,
    () => now,
  );
  const app = await buildApiServer({ store, readiness: () => readiness.check() });
  const ready = async () => (await app.inject({ url: '/readyz' })).body;
  const polled = (height: number) => {
    health.tipSeen({ height, hash: `h${height}` });
    health.pollSucceeded();
  };
  try {
    assert.equal(await ready(), 'ChainNotWatchedYet');
    polled(100);
    assert.equal(await ready(), 'ChainNotWatchedYet');
    const block = { height: 94, hash: 'h94' };
    await store.applyChainStep({ chain: 'ethereum', startHeight: 90, observations: [], cursor: block, orders: [] });
    assert.equal(await ready(), 'ChainBehind');
    polled(99);
    assert.equal(await ready(), 'Ready');
    assert.deepEqual(await readiness.progress(), [
      { chain: 'ethereum', tipHeight: 99, processedHeight: 94, allowedLagBlocks: 5 },
    ]);
    health.pollFailed(new NodeCallFailed('timeout', 'http://node:8545', 'ethereum eth_getBlockByNumber', 'no answer'));
    assert.equal(await ready(), 'ChainUnreachable');
    health.pollFailed(new NodeCallFailed('tooLarge', 'http://node:8545', 'ethereum eth_getLogs', 'answer too large'));
    assert.equal(await ready(), 'ChainNodeMisbehaving');
    polled(99);
    assert.equal(await ready(), 'Ready');
    now += 60_001;
    assert.equal(await ready(), 'ChainUnreachable', 'no poll for longer than the bound: polls are stuck on the node');
    health.pollFailed(new Error('the store failed, not the node'));
    assert.equal(await ready(), 'Ready', "an error that is not the node's leaves its condition");
  } finally {
    await app.close();
    await fresh.dispose();
  }
});

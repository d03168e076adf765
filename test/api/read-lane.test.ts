/**
 * The read lane answers the most polled order reads before Fastify. These tests hold it to what Fastify alone
 * would send, over real HTTP on both stores: the same status, headers and bytes for every spelling of every
 * route, refusals and failures left to Fastify, and its answers counted in the metrics like Fastify's.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { LnswapError } from '../../src/domain/errors.js';
import { ServiceMetrics } from '../../src/engine/metrics.js';
import type { Store } from '../../src/store/store.js';
import {
  buildOrder,
  configuration,
  hashOfInvoice,
  seedStore,
  settledOrdersOfOneInvoice,
  uuidFor,
} from '../support/fixtures.js';
import { openFreshStore, STORE_KINDS, skipReason, type FreshStore } from '../support/stores.js';

const { complete, refunded } = settledOrdersOfOneInvoice('lane');
const ethereum = buildOrder({ label: 'lane-eth', market: 'ETH_LBTC', state: 'PartiallyFunded', funds: [10n] });
const waiting = buildOrder({ label: 'lane-waiting', state: 'WaitingForFundingTx' });
const ORDERS = [complete, refunded, ethereum, waiting];
const invoiceHash = hashOfInvoice(complete.record.invoice);
const unknownId = uuidFor('lane-unknown');

/** Every spelling the lane might meet: the ones it serves and the ones it must leave to Fastify. */
function urls(): string[] {
  const list = [
    `/api/orders?invoiceHash=${invoiceHash}`,
    `/api/orders?invoiceHash=${invoiceHash.toUpperCase()}`,
    `/api/orders?invoiceHash=${hashOfInvoice(waiting.record.invoice)}`,
    `/api/orders?invoiceHash=${'0'.repeat(64)}`,
    `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=btc`,
    `/api/orders?invoiceHash=${invoiceHash}&invoiceHash=${invoiceHash}`,
    `/api/orders?invoiceHash=${invoiceHash.slice(1)}`,
    `/api/orders/?invoiceHash=${invoiceHash}`,
    `/api/orders/${unknownId}`,
    `/api/orders/${unknownId}/refund`,
    `/api/orders/${'g'.repeat(32)}`,
    `/api/orders/${'a'.repeat(34)}`,
  ];
  for (const { record } of ORDERS) {
    const dashless = record.id.replaceAll('-', '').toUpperCase();
    for (const tail of ['', '/fundDetails', '/refund', '/transactions', '/state']) {
      list.push(`/api/orders/${record.id}${tail}`, `/api/orders/${dashless}${tail}`);
    }
    list.push(
      `/api/orders/${record.id}/`,
      `/api/orders/${record.id}?x=1`,
      `/api/orders/${record.id.replace('-', '%2D')}`,
    );
  }
  return list;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function fetchRaw(port: number, path: string, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Node's client sends a GET's body only when told its length.
    const headers = body === undefined ? {} : { 'content-length': Buffer.byteLength(body) };
    const request = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Headers that differ between any two answers by design: the date, and a request id made for each. */
function comparable(answer: Answer): Answer {
  const { date, 'x-request-id': requestId, ...headers } = answer.headers;
  assert.ok(date !== undefined);
  assert.match(String(requestId), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  return { ...answer, headers };
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** Counts the requests that reach Fastify (its first hook), and the store's order reads. */
function countingFastify(app: FastifyInstance): { requests: number } {
  const seen = { requests: 0 };
  app.addHook('onRequest', (_request, _reply, done) => {
    seen.requests += 1;
    done();
  });
  return seen;
}

/** The store, with its order reads counted and, while `failing`, refused as a database that is down. */
function instrumented(store: Store): { store: Store; reads: number; failing: boolean } {
  const probe = { store, reads: 0, failing: false };
  probe.store = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'getOrder') {
        return async (id: string) => {
          probe.reads += 1;
          if (probe.failing) throw new LnswapError('ServiceUnavailable');
          return target.getOrder(id);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return probe;
}

for (const kind of STORE_KINDS) {
  describe(`the read lane (${kind})`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    let probe: ReturnType<typeof instrumented>;
    let withLane: FastifyInstance;
    let withoutLane: FastifyInstance;
    let laneFastify: { requests: number };
    let lanePort: number;
    let plainPort: number;
    const metrics: ServiceMetrics[] = [];

    before(async () => {
      fresh = await openFreshStore(kind);
      await seedStore(fresh.store, { configuration: configuration(), orders: ORDERS.map(({ record }) => record) });
      probe = instrumented(fresh.store);
      metrics.push(new ServiceMetrics({ store: fresh.store }), new ServiceMetrics({ store: fresh.store }));
      withLane = await buildApiServer({ store: probe.store, metrics: metrics[0] });
      withoutLane = await buildApiServer({ store: fresh.store, readLane: false, metrics: metrics[1] });
      laneFastify = countingFastify(withLane);
      lanePort = await listen(withLane);
      plainPort = await listen(withoutLane);
    });

    after(async () => {
      await withLane.close();
      await withoutLane.close();
      for (const each of metrics) each.stop();
      await fresh.dispose();
    });

    test('every spelling gets the status, headers and bytes Fastify alone sends, first read and cached', async () => {
      for (let pass = 0; pass < 3; pass++) {
        for (const url of urls()) {
          const [laned, plain] = await Promise.all([fetchRaw(lanePort, url), fetchRaw(plainPort, url)]);
          assert.deepEqual(comparable(laned), comparable(plain), `${url}, pass ${pass + 1}`);
        }
      }
    });

    test('the plain spellings of the order reads never reach Fastify; the others do', async () => {
      const served = [
        `/api/orders/${complete.record.id}`,
        `/api/orders/${ethereum.record.id.replaceAll('-', '').toUpperCase()}/fundDetails`,
        `/api/orders/${refunded.record.id}/refund`,
        `/api/orders/${waiting.record.id}/transactions`,
        `/api/orders?invoiceHash=${invoiceHash}`,
      ];
      const before = laneFastify.requests;
      for (const url of served) assert.equal((await fetchRaw(lanePort, url)).status, 200, url);
      assert.equal(laneFastify.requests, before, 'a plain read reached Fastify');

      const left = [
        `/api/orders/${complete.record.id}/state`,
        `/api/orders/${complete.record.id}/`,
        `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=btc`,
      ];
      for (const url of left) assert.equal((await fetchRaw(lanePort, url)).status, 200, url);
      assert.equal((await fetchRaw(lanePort, `/api/orders/${complete.record.id}`, 'HEAD')).status, 200);
      assert.equal((await fetchRaw(lanePort, `/api/orders/${complete.record.id}`, 'GET', 'x')).status, 200);
      assert.equal(laneFastify.requests, before + left.length + 2);
    });

    test("a refusal is Fastify's: an unknown order is read by the lane, then again by the route", async () => {
      const readsBefore = probe.reads;
      const fastifyBefore = laneFastify.requests;
      const answer = await fetchRaw(lanePort, `/api/orders/${unknownId}`);
      assert.equal(answer.status, 404);
      assert.equal(answer.body, 'OrderNotFound');
      assert.equal(probe.reads - readsBefore, 2);
      assert.equal(laneFastify.requests - fastifyBefore, 1);
    });

    test('a failing store is answered by Fastify as a failing store, 503 and Retry-After', async () => {
      probe.failing = true;
      try {
        const answer = await fetchRaw(lanePort, `/api/orders/${waiting.record.id}/refund`);
        assert.equal(answer.status, 503);
        assert.equal(answer.body, 'ServiceUnavailable');
        assert.equal(answer.headers['retry-after'], '1');
      } finally {
        probe.failing = false;
      }
    });

    test("the lane's answers are counted in /metrics under their route, as Fastify's are", async () => {
      const route = '/api/orders/:id/fundDetails';
      const countOf = async (port: number): Promise<number> => {
        const text = (await fetchRaw(port, '/metrics')).body;
        const line = text
          .split('\n')
          .find((row) => row.startsWith('lnswap_http_requests_total{') && row.includes(`route="${route}"`));
        return line === undefined ? 0 : Number(line.split(' ').at(-1));
      };
      const [laneBefore, plainBefore] = [await countOf(lanePort), await countOf(plainPort)];
      for (let index = 0; index < 3; index++) {
        await fetchRaw(lanePort, `/api/orders/${complete.record.id}/fundDetails`);
        await fetchRaw(plainPort, `/api/orders/${complete.record.id}/fundDetails`);
      }
      assert.equal((await countOf(lanePort)) - laneBefore, 3);
      assert.equal((await countOf(plainPort)) - plainBefore, 3);
    });
  });
}

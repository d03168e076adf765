/**
 * The read lane answers the most polled order reads before Fastify. These tests hold it to what Fastify alone
 * would send, over real HTTP on both stores: the same status, headers and bytes for every spelling of every
 * route, refusals and failures included, each answered with one read, counted in the metrics and logged like
 * Fastify's.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { FAILURE_MESSAGE, LnswapError } from '../../src/domain/errors.js';
import { ServiceMetrics } from '../../src/engine/operations/metrics.js';
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
    `/api/orders?invoiceHash=${'g'.repeat(64)}`,
    `/api/orders?invoiceHash=`,
    `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=doge`,
    `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=`,
    `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=ETH`,
    `/api/orders?onchainTicker=btc`,
    `/api/orders/?invoiceHash=${invoiceHash}`,
    `/api/orders/${unknownId}`,
    `/api/orders/${unknownId}/refund`,
    `/api/orders/${'g'.repeat(32)}`,
    `/api/orders/${'a'.repeat(34)}`,
    `/api/orders/state`,
    `/api/orders/x.y~z_/fundDetails`,
    `/api/orders/${unknownId}/state`,
    `/api/orders/${unknownId}/elsewhere`,
    `/api/orders/${ethereum.record.id}/refund?funder=0x${'ab'.repeat(20)}`,
    `/api/orders/${ethereum.record.id}/refund?funder=0x${'AB'.repeat(19)}`,
    `/api/orders/${complete.record.id}/refund?funder=0x${'ab'.repeat(20)}`,
    `/api/orders/${unknownId}/refund?funder=0x${'ab'.repeat(20)}`,
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

/** The store, with its order reads counted and, while `failing` is set, failing with it. */
function instrumented(store: Store): { store: Store; reads: number; failing: Error | undefined } {
  const probe: { store: Store; reads: number; failing: Error | undefined } = { store, reads: 0, failing: undefined };
  probe.store = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'getOrder') {
        return async (id: string) => {
          probe.reads += 1;
          if (probe.failing !== undefined) throw probe.failing;
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
      withoutLane = await buildApiServer({ store: probe.store, readLane: false, metrics: metrics[1] });
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

    test('the plain spellings of the order routes never reach Fastify, refusals included; the others do', async () => {
      const served: [string, number][] = [
        [`/api/orders/${complete.record.id}`, 200],
        [`/api/orders/${complete.record.id}/state`, 200],
        [`/api/orders/${ethereum.record.id.replaceAll('-', '').toUpperCase()}/fundDetails`, 200],
        [`/api/orders/${refunded.record.id}/refund`, 200],
        [`/api/orders/${waiting.record.id}/transactions`, 200],
        [`/api/orders?invoiceHash=${invoiceHash}`, 200],
        [`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=btc`, 200],
        [`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=doge`, 400],
        [`/api/orders?invoiceHash=${invoiceHash.slice(2)}`, 400],
        [`/api/orders/${'g'.repeat(32)}/refund`, 400],
        [`/api/orders/${unknownId}/fundDetails`, 404],
      ];
      const before = laneFastify.requests;
      for (const [url, status] of served) assert.equal((await fetchRaw(lanePort, url)).status, status, url);
      assert.equal(laneFastify.requests, before, 'a plain read reached Fastify');

      const left = [
        `/api/orders/${complete.record.id}/`,
        `/api/orders/${complete.record.id}?x=1`,
        `/api/orders/${complete.record.id.replace('-', '%2D')}`,
        `/api/orders?invoiceHash=${invoiceHash}&onchainTicker=btc&x=1`,
      ];
      for (const url of left) assert.equal((await fetchRaw(lanePort, url)).status, 200, url);
      assert.equal((await fetchRaw(lanePort, `/api/orders/${complete.record.id}`, 'HEAD')).status, 200);
      assert.equal((await fetchRaw(lanePort, `/api/orders/${complete.record.id}`, 'GET', 'x')).status, 200);
      assert.equal(laneFastify.requests, before + left.length + 2);
    });

    test('a refusal is answered by the lane: an unknown order costs one read and never reaches Fastify', async () => {
      const readsBefore = probe.reads;
      const fastifyBefore = laneFastify.requests;
      const answer = await fetchRaw(lanePort, `/api/orders/${unknownId}`);
      assert.equal(answer.status, 404);
      assert.equal(answer.body, 'OrderNotFound');
      assert.equal(probe.reads - readsBefore, 1);
      assert.equal(laneFastify.requests - fastifyBefore, 0);
    });

    test('a failing store is answered as Fastify answers it, 503 and Retry-After, with one read', async () => {
      probe.failing = new LnswapError('ServiceUnavailable');
      try {
        const url = `/api/orders/${waiting.record.id}/refund`;
        const readsBefore = probe.reads;
        const laned = await fetchRaw(lanePort, url);
        assert.equal(probe.reads - readsBefore, 1);
        assert.equal(laned.status, 503);
        assert.equal(laned.body, 'ServiceUnavailable');
        assert.equal(laned.headers['retry-after'], '1');
        assert.deepEqual(comparable(laned), comparable(await fetchRaw(plainPort, url)));
      } finally {
        probe.failing = undefined;
      }
    });

    test('an unexpected failure is a 500 with the fixed sentence, never the error, as Fastify sends it', async () => {
      probe.failing = new Error('disk on fire at /var/lib/secret');
      try {
        const url = `/api/orders/${waiting.record.id}/fundDetails`;
        const laned = await fetchRaw(lanePort, url);
        assert.equal(laned.status, 500);
        assert.equal(laned.body, FAILURE_MESSAGE);
        assert.deepEqual(comparable(laned), comparable(await fetchRaw(plainPort, url)));
      } finally {
        probe.failing = undefined;
      }
    });

    test("the lane's answers and refusals are counted in /metrics under their route, as Fastify's are", async () => {
      const route = '/api/orders/:id/fundDetails';
      const countOf = async (port: number, status: number): Promise<number> => {
        const text = (await fetchRaw(port, '/metrics')).body;
        const line = text
          .split('\n')
          .find(
            (row) =>
              row.startsWith('lnswap_http_requests_total{') &&
              row.includes(`route="${route}"`) &&
              row.includes(`status="${status}"`),
          );
        return line === undefined ? 0 : Number(line.split(' ').at(-1));
      };
      const counts = async (): Promise<number[]> => [
        await countOf(lanePort, 200),
        await countOf(plainPort, 200),
        await countOf(lanePort, 404),
        await countOf(plainPort, 404),
      ];
      const before = await counts();
      for (let index = 0; index < 3; index++) {
        for (const port of [lanePort, plainPort]) {
          await fetchRaw(port, `/api/orders/${complete.record.id}/fundDetails`);
          if (index < 2) await fetchRaw(port, `/api/orders/${unknownId}/fundDetails`);
        }
      }
      const after = await counts();
      assert.deepEqual(
        after.map((count, index) => count - before[index]!),
        [3, 3, 2, 2],
      );
    });
  });
}

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildApiServer } from '../../src/api/server.js';
import { configuration, seedStore } from '../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';

describe('access log', () => {
  let fresh: FreshStore;
  before(async () => {
    fresh = await openFreshStore('sqlite');
    await seedStore(fresh.store, { configuration: configuration() });
  });
  after(() => fresh.dispose());

  async function linesLoggedFor(accessLog: boolean): Promise<Record<string, unknown>[]> {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const app = await buildApiServer({ store: fresh.store, loggerInstance: logger, accessLog });
    try {
      const answered = await app.inject({ method: 'GET', url: '/api/markets' });
      const refused = await app.inject({ method: 'GET', url: '/api/orders/nope' });
      assert.deepEqual([answered.statusCode, refused.statusCode], [200, 400]);
    } finally {
      await app.close();
    }
    return lines;
  }

  test('one debug line per request, with its outcome, when asked for', async () => {
    const lines = await linesLoggedFor(true);
    assert.deepEqual(
      lines.map((line) => [line['level'], line['msg'], line['url'], line['statusCode']]),
      [
        [20, 'request completed', '/api/markets', 200],
        [20, 'request completed', '/api/orders/nope', 400],
      ],
    );
    assert.equal(typeof lines[0]?.['responseTimeMs'], 'number');
  });

  test('the read lane logs its answers as Fastify does, so debugging runs the production path', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const app = await buildApiServer({ store: fresh.store, loggerInstance: logger, accessLog: true });
    const fastifyReached: string[] = [];
    app.addHook('onRequest', (request, _reply, done) => {
      fastifyReached.push(request.url);
      done();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    try {
      const unknown = '00000000-0000-4000-8000-000000000000';
      const answer = await fetch(`http://127.0.0.1:${port}/api/orders/${unknown}`);
      assert.equal(answer.status, 404);
      assert.deepEqual(fastifyReached, [], 'the lane left the read to Fastify');
      assert.deepEqual(
        lines
          .filter((line) => line['msg'] !== `Server listening at http://127.0.0.1:${port}`)
          .map((line) => [line['level'], line['msg'], line['method'], line['url'], line['statusCode'], line['reqId']]),
        [[20, 'request completed', 'GET', `/api/orders/${unknown}`, 404, answer.headers.get('x-request-id')]],
      );
      assert.equal(typeof lines.at(-1)?.['responseTimeMs'], 'number');
    } finally {
      await app.close();
    }
  });

  test('nothing per request otherwise, even with the logger at debug', async () => {
    assert.deepEqual(await linesLoggedFor(false), []);
  });
});

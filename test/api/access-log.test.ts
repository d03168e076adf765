import assert from 'node:assert/strict';
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
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
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

  test('nothing per request otherwise, even with the logger at debug', async () => {
    assert.deepEqual(await linesLoggedFor(false), []);
  });
});

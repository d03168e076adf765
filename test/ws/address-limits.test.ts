import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import type { SocketOptions } from '../../src/ws/socket-options.js';
import { skipReason, STORE_KINDS } from '../support/stores.js';
import {
  connectClient,
  recordingLogger,
  request,
  startOnStore,
  startTestService,
  type Client,
  type TestService,
} from '../support/ws/harness.js';

const UNLIMITED = { burst: 1_000_000, perSecond: 1_000_000 };
const SOCKETS: Partial<SocketOptions> = {
  eventsPerConnection: UNLIMITED,
  eventsPerAddress: { burst: 6, perSecond: 0.001 },
  connectionsPerAddress: 3,
  // Each test speaks for its own address, so the tests do not share budgets.
  trustProxy: 1,
  clusterHeartbeatIntervalMs: 100,
  clusterHeartbeatTimeoutMs: 1_000,
};

async function outcomes(client: Client, times: number): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (let index = 0; index < times; index += 1) {
    const ack = await request(client, 'requestMarketRequirements', null);
    answers.push(ack.success ? 'served' : ack.message);
  }
  return answers;
}

for (const kind of STORE_KINDS) {
  describe(
    `rate limits per client address, across connections and instances (${kind})`,
    { skip: skipReason(kind) },
    () => {
      let harness: TestService;
      const log = recordingLogger();
      // On PostgreSQL a second instance on the same database; on SQLite the same one (one process serves it).
      let storeB: Store | undefined;
      let instanceB: RunningService | undefined;
      const clients: Client[] = [];

      before(async () => {
        harness = await startTestService(kind, { sockets: SOCKETS, logger: log.logger });
        if (kind === 'postgres') {
          storeB = await openStore(harness.fresh.url);
          instanceB = await startOnStore(storeB, harness.fresh.url, { sockets: SOCKETS });
        }
      });
      after(async () => {
        for (const client of clients) client.close();
        await instanceB?.close();
        await storeB?.close();
        await harness?.close();
      });

      async function connect(url: string, forwardedFor: string): Promise<Client> {
        const client = await connectClient(url, '/user/v1', 'v4', { 'x-forwarded-for': forwardedFor });
        clients.push(client);
        return client;
      }

      test('connections of one address share one budget, whichever instance serves them', async () => {
        const onA = await connect(harness.service.url, '198.51.100.1');
        const onB = await connect((instanceB ?? harness.service).url, '198.51.100.1');
        const elsewhere = await connect((instanceB ?? harness.service).url, '198.51.100.2');
        assert.deepEqual(await outcomes(onA, 4), ['served', 'served', 'served', 'served']);
        assert.deepEqual(await outcomes(onB, 4), ['served', 'served', 'RateLimitExceeded', 'RateLimitExceeded']);
        assert.deepEqual(await outcomes(onA, 1), ['RateLimitExceeded']);
        assert.deepEqual(await outcomes(elsewhere, 2), ['served', 'served'], 'another address has its own budget');
      });

      test('an address at the connection cap is refused with TooManyConnections until one of its connections closes', async () => {
        const address = '198.51.100.3';
        const open = [];
        for (let index = 0; index < 3; index += 1) open.push(await connect(harness.service.url, address));
        await assert.rejects(
          connect(harness.service.url, address),
          (error: Error) => error.message === 'TooManyConnections',
        );
        const other = await connect(harness.service.url, '198.51.100.4');
        assert.ok(other.connected, 'other addresses still connect');
        open[0]?.close();
        let admitted: Client | undefined;
        for (let attempt = 0; attempt < 50 && admitted === undefined; attempt += 1) {
          admitted = await connect(harness.service.url, address).catch(() => undefined);
          if (admitted === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(admitted?.connected, 'a connection closed leaves room for another');
      });

      test("entries a client writes left of the proxy's own are no new address: the cap and the budget hold", async () => {
        // The test client is its own proxy: the one trusted hop appended 192.0.2.10; what is left of it is the client's.
        const spoofed = (index: number) => `${index}.${index}.${index}.${index}, 203.0.113.${index}, 192.0.2.10`;
        const open: Client[] = [];
        for (let index = 1; index <= 3; index += 1) open.push(await connect(harness.service.url, spoofed(index)));
        await assert.rejects(
          connect(harness.service.url, spoofed(4)),
          (error: Error) => error.message === 'TooManyConnections',
        );
        const answers = [];
        for (const client of open) answers.push(...(await outcomes(client, 3)));
        assert.equal(
          answers.filter((answer) => answer === 'served').length,
          6,
          "one address's six events, not three addresses' eighteen",
        );
      });

      test('an entry that is no address, 3,000 characters long, is ignored with one log line; every event is answered', async () => {
        const before = log.lines.length;
        const garbage = 'x'.repeat(3_000);
        const clients = [
          await connect(harness.service.url, garbage),
          await connect(harness.service.url, `203.0.113.9, ${garbage}`),
        ];
        const answers = [];
        for (const client of clients) answers.push(...(await outcomes(client, 4)));
        // Both count as their peer, 127.0.0.1, which the earlier tests have not used: one budget of six events.
        assert.deepEqual(answers.filter((answer) => answer === 'served').length, 6);
        assert.ok(
          answers.every((answer) => answer === 'served' || answer === 'RateLimitExceeded'),
          JSON.stringify(answers),
        );
        const lines = log.lines.slice(before);
        assert.equal(lines.filter((line) => String(line.msg).startsWith('malformed X-Forwarded-For')).length, 1);
        assert.deepEqual(
          lines.filter((line) => Number(line.level) >= 40 && !String(line.msg).startsWith('malformed')),
          [],
        );
      });
    },
  );
}

describe('authentications behind a proxy, with spoofed X-Forwarded-For entries', () => {
  let harness: TestService;

  before(async () => {
    harness = await startTestService('sqlite', {
      sockets: {
        ...SOCKETS,
        eventsPerAddress: UNLIMITED,
        connectionsPerAddress: 50,
        authenticationsPerAddress: { burst: 2, perSecond: 0.001 },
      },
    });
  });
  after(() => harness?.close());

  test('each slow credential check is counted against the address the proxy saw, whatever the client prepends', async () => {
    const answers = [];
    for (let index = 0; index < 8; index += 1) {
      const forwardedFor = `198.18.${index}.${index}, 203.0.113.77`;
      const provider = await connectClient(harness.service.url, '/provider/v1', 'v4', {
        'x-forwarded-for': forwardedFor,
      });
      harness.clients.push(provider);
      const ack = await request(provider, 'authenticate', { apiKey: 'nobody', secretKey: 'wrong' });
      answers.push(ack.message);
    }
    assert.deepEqual(answers.filter((answer) => answer !== 'RateLimitExceeded').length, 2, JSON.stringify(answers));
  });
});

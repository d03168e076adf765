import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import {
  addProvider,
  connectClient,
  PROVIDER_EVENTS,
  request,
  USER_EVENTS,
  startTestService,
  type Ack,
  type Client,
  type ProviderKeys,
  type TestService,
} from '../support/ws/harness.js';

const FIELDS = ['orderId', 'sinceSequence', 'market', 'invoice', 'refundAddress', 'network', 'subnet', 'apiKey'];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const UNLIMITED = { burst: 1_000_000, perSecond: 1_000_000 };
const TOKEN = /^[A-Z][A-Za-z]+$/;
const WAIT_MS = 10_000;

/** Objects whose own keys are prototype names: JSON.parse makes `__proto__` an own key, as a client's JSON would. */
const prototypeKeyed = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...FIELDS))
  .map(
    ([key, value, field]) =>
      JSON.parse(
        `{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'},"${field}":${JSON.stringify(value) ?? 'null'}}`,
      ) as unknown,
  );

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { orderId: value };
  return value;
}

const hostilePayload: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 4, withBigInt: false, withMap: false, withSet: false }),
  fc.record({ orderId: fc.anything({ maxDepth: 2 }), sinceSequence: fc.anything({ maxDepth: 1 }) }),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 3 })),
  prototypeKeyed,
  fc.integer({ min: 1, max: 60 }).map((depth) => nested(depth, 'x')),
  fc.integer({ min: 1_000, max: 40_000 }).map((length) => ({ invoice: 'l'.repeat(length), market: 'BTC_LBTC' })),
  fc.integer({ min: 100, max: 5_000 }).map((length) => Array.from({ length }, (_, index) => index)),
  fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ orderId: Buffer.from(bytes) })),
  fc.constantFrom(null, undefined, '', 0, -1, Number.MAX_SAFE_INTEGER, true, [], {}),
);

/** The ack, or the close of the connection (a message beyond the bounds socket.io's parser allows). */
function outcomeOf(client: Client, event: string, payload: unknown): Promise<Ack | 'closed'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`neither an ack nor a close for ${event}`)), WAIT_MS);
    const closed = () => {
      clearTimeout(timer);
      resolve('closed');
    };
    client.on('disconnect', closed);
    client.emit(event, payload, (ack: Ack) => {
      clearTimeout(timer);
      client.off('disconnect', closed);
      resolve(ack);
    });
  });
}

function assertIsAnswer(outcome: Ack | 'closed', what: string): void {
  if (outcome === 'closed') return;
  assert.equal(typeof outcome.success, 'boolean', what);
  if (!outcome.success) assert.match(String(outcome.message), TOKEN, `${what} answered ${JSON.stringify(outcome)}`);
}

describe('hostile payloads on every event of both namespaces, as properties', () => {
  let harness: TestService;
  let keys: ProviderKeys;

  before(async () => {
    harness = await startTestService('sqlite', {
      sockets: {
        eventsPerConnection: UNLIMITED,
        eventsPerAddress: UNLIMITED,
        authenticationsPerAddress: UNLIMITED,
        quoteRequestsPerConnection: UNLIMITED,
        quoteRequestsPerAddress: UNLIMITED,
        connectionsPerAddress: 20,
      },
    });
    keys = await addProvider(harness.fresh.store, 'property-maker');
  });
  after(() => harness?.close());

  test('random and adversarial payloads: every ack is a token or a success, the process stays up and serves', async () => {
    const clients = new Map<string, Client>();
    const clientFor = async (namespace: '/user/v1' | '/provider/v1', authenticated: boolean): Promise<Client> => {
      const key = `${namespace}:${authenticated}`;
      const existing = clients.get(key);
      if (existing?.connected) return existing;
      existing?.close();
      const client = await connectClient(harness.service.url, namespace);
      if (authenticated) assert.deepEqual(await request(client, 'authenticate', keys), { success: true });
      clients.set(key, client);
      return client;
    };
    const heapBefore = process.memoryUsage().heapUsed;
    const target = fc.oneof(
      fc.constantFrom(...USER_EVENTS).map((event) => ({ namespace: '/user/v1' as const, event, authenticated: false })),
      fc
        .tuple(fc.constantFrom(...PROVIDER_EVENTS, 'noSuchEvent', 'constructor', '__proto__'), fc.boolean())
        .map(([event, authenticated]) => ({ namespace: '/provider/v1' as const, event, authenticated })),
    );
    try {
      await fc.assert(
        fc.asyncProperty(target, hostilePayload, async ({ namespace, event, authenticated }, payload) => {
          const client = await clientFor(namespace, authenticated);
          assertIsAnswer(await outcomeOf(client, event, payload), `${namespace} ${event}`);
        }),
        { numRuns: 300, seed: PROPERTY_SEED },
      );
      const bystander = await clientFor('/user/v1', false);
      assert.equal((await request(bystander, 'requestMarketRequirements', null)).success, true);
    } finally {
      for (const client of clients.values()) client.close();
    }
    const grownMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    assert.ok(grownMiB < 128, `heap grew by ${grownMiB.toFixed(1)} MiB`);
  });

  test('a flood of events on one connection: each gets its ack, the limit refuses the excess', async () => {
    const flooded = await startTestService('sqlite', {
      sockets: { eventsPerConnection: { burst: 50, perSecond: 0.001 } },
    });
    try {
      const client = await flooded.connect('/user/v1');
      const acks = await Promise.all(
        Array.from({ length: 2_000 }, (_, index) =>
          request(client, index % 2 === 0 ? 'requestMarketRequirements' : 'noSuchEvent', null),
        ),
      );
      assert.equal(acks.length, 2_000);
      assert.equal(acks.filter((ack) => ack.message === 'RateLimitExceeded').length, 1_950);
      assert.ok(acks.every((ack) => ack.success || TOKEN.test(String(ack.message))));
    } finally {
      await flooded.close();
    }
  });

  test('a flood of connections from one address: the cap refuses the excess with a token, others are served', async () => {
    const capped = await startTestService('sqlite', { sockets: { connectionsPerAddress: 20 } });
    const attempts = await Promise.allSettled(
      Array.from({ length: 60 }, () => connectClient(capped.service.url, '/user/v1')),
    );
    const admitted = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    const refusals = attempts.flatMap((attempt) =>
      attempt.status === 'rejected' ? [(attempt.reason as Error).message] : [],
    );
    try {
      assert.equal(admitted.length, 20);
      assert.deepEqual(new Set(refusals), new Set(['TooManyConnections']));
      assert.equal((await request(admitted[0] as Client, 'requestMarketRequirements', null)).success, true);
    } finally {
      for (const client of admitted) client.close();
      await capped.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import connectLegacy from 'socket.io-client-v2';
import { postgresReachable } from '../support/stores.js';
import {
  addProvider,
  PROVIDER_EVENTS as PROVIDER_REQUESTS,
  request,
  startTestService,
  USER_EVENTS,
  type ProviderKeys,
  type TestService,
} from '../support/ws/harness.js';
import { nestedArrayJson, RawPollingSession, type RawOutcome } from '../support/ws/raw-polling.js';

/** An event no handler serves gets the same treatment. */
const PROVIDER_EVENTS = [...PROVIDER_REQUESTS, 'noSuchEvent'];

const DEPTHS = [10_000, 100_000];
/** What a refusal of such a payload may say; anything else (a success, a crash) fails. */
const REFUSALS = ['PayloadTooLarge', 'InvalidPayload'];
const WAIT_MS = 5_000;

interface Attack {
  readonly namespace: '/user/v1' | '/provider/v1';
  readonly event: string;
  readonly authenticated: boolean;
}

const ATTACKS: readonly Attack[] = [
  ...USER_EVENTS.map((event) => ({ namespace: '/user/v1' as const, event, authenticated: false })),
  ...PROVIDER_EVENTS.flatMap((event) => [
    { namespace: '/provider/v1' as const, event, authenticated: false },
    { namespace: '/provider/v1' as const, event, authenticated: true },
  ]),
];

/**
 * A socket.io 4 client over WebSocket; the packet is written raw, as its own encoder would overflow on it. The
 * engine prefixes its message type (4), so the socket.io packet is written from its own type on (2, an event).
 */
async function attackOverWebSocket(
  baseUrl: string,
  attack: Attack,
  keys: ProviderKeys,
  payloadJson: string,
): Promise<RawOutcome> {
  const socket: Socket = io(`${baseUrl}${attack.namespace}`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    if (attack.authenticated) {
      assert.deepEqual(await request(socket, 'authenticate', keys), { success: true });
    }
    const prefix = `3${attack.namespace},900`;
    return await new Promise<RawOutcome>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`neither an ack nor a close for ${attack.event}`)), WAIT_MS);
      socket.io.engine.on('message', (data: unknown) => {
        if (typeof data !== 'string' || !data.startsWith(prefix)) return;
        clearTimeout(timer);
        resolve({ ack: (JSON.parse(data.slice(prefix.length)) as [{ success: boolean; message?: unknown }])[0] });
      });
      socket.once('disconnect', (reason) => {
        clearTimeout(timer);
        resolve({ closed: reason });
      });
      socket.io.engine.send(`2${attack.namespace},900[${JSON.stringify(attack.event)},${payloadJson}]`);
    });
  } finally {
    socket.close();
  }
}

/** The same packet by hand over long-polling. */
async function attackOverPolling(
  baseUrl: string,
  attack: Attack,
  keys: ProviderKeys,
  payloadJson: string,
): Promise<RawOutcome> {
  const session = await RawPollingSession.connect(baseUrl, attack.namespace);
  try {
    if (attack.authenticated) {
      assert.deepEqual(await session.emit('authenticate', JSON.stringify(keys)), { ack: { success: true } });
    }
    return await session.emit(attack.event, payloadJson);
  } finally {
    session.close();
  }
}

function assertRefusedOrClosed(outcome: RawOutcome, what: string): void {
  if ('closed' in outcome) return;
  assert.equal(outcome.ack.success, false, `${what} was accepted`);
  assert.ok(REFUSALS.includes(outcome.ack.message as string), `${what} answered ${JSON.stringify(outcome.ack)}`);
}

// The store plays no part in these bounds: PostgreSQL, the production cluster's store, when it is here.
const kind = postgresReachable ? 'postgres' : 'sqlite';
describe(`deeply nested payloads on ${kind}`, () => {
  /** Messages up to 2 MiB, the default: even a 100,000-deep payload gets past engine.io's size bound to socket.io's parser. */
  let harness: TestService;
  let keys: ProviderKeys;
  // Each attack takes a fresh authenticated connection; the flood limit is not what is tested here.
  const authentications = { burst: 1_000, perSecond: 1_000 };
  // Nor are the byte budgets: every attack comes from one address.
  const bytes = { burst: 64 * 1024 * 1024, perSecond: 64 * 1024 * 1024 };

  before(async () => {
    harness = await startTestService(kind, {
      sockets: { authenticationsPerAddress: authentications, bytesPerConnection: bytes, bytesPerAddress: bytes },
    });
    keys = await addProvider(harness.fresh.store, 'deep-nester');
  });
  after(async () => {
    await harness?.close();
  });

  for (const depth of DEPTHS) {
    test(`nested ${depth} deep, on every event of both namespaces, authenticated or not: refused or closed, others served`, async () => {
      const bystander = await harness.connect('/user/v1', 'v2');
      const payloadJson = nestedArrayJson(depth);
      await Promise.all(
        ATTACKS.map(async (attack) => {
          const what = `${attack.namespace} ${attack.event}${attack.authenticated ? ' (authenticated)' : ''} at depth ${depth}`;
          const overWebSocket = await attackOverWebSocket(harness.service.url, attack, keys, payloadJson);
          // Past its 16 KiB bound, read from the packet's header, an event other than broadcastTransaction is
          // answered in its ack and the connection kept; a broadcast may be that large, and its nesting closes it.
          if (attack.event !== 'broadcastTransaction') {
            assert.ok('ack' in overWebSocket, `${what} over WebSocket closed the connection instead of answering`);
          }
          assertRefusedOrClosed(overWebSocket, `${what} over WebSocket`);
          assertRefusedOrClosed(
            await attackOverPolling(harness.service.url, attack, keys, payloadJson),
            `${what} over polling`,
          );
        }),
      );
      assert.ok(bystander.connected, 'a bystander lost its connection');
      const served = await request(bystander, 'requestMarketRequirements', null);
      assert.equal(served.success, true);
    });
  }

  test('over engine.io 3, a quote in the namespace query hides no nesting: the 30,000-deep packet closes its connection', async () => {
    const socket = connectLegacy(`${harness.service.url}/user/v1`, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
    });
    // The 2.x client's engine, to write a packet its encoder never would.
    const { engine } = (socket as unknown as { io: { engine: LegacyEngine } }).io;
    try {
      await new Promise<void>((resolve, reject) => {
        socket.on('connect', resolve);
        socket.on('connect_error', reject);
      });
      const outcome = await new Promise<RawOutcome>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('neither an ack nor a close')), WAIT_MS);
        engine.on('message', (data) => {
          if (typeof data !== 'string' || !data.startsWith('3/user/v1')) return;
          clearTimeout(timer);
          resolve({ ack: { success: false, message: data } });
        });
        socket.on('disconnect', (reason: string) => {
          clearTimeout(timer);
          resolve({ closed: reason });
        });
        // socket.io reads an engine.io 3 namespace as a URL: the query is dropped and the event reaches /user/v1.
        engine.write(`2/user/v1?q=",900["requestMarketRequirements",${nestedArrayJson(30_000)}]`);
      });
      assert.ok('closed' in outcome, `the decoder let it through: ${JSON.stringify(outcome).slice(0, 200)}`);
    } finally {
      socket.close();
    }
  });
});

interface LegacyEngine {
  on(event: 'message', listener: (data: unknown) => void): void;
  write(data: string): void;
}

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Server } from 'socket.io';
import { io as connectClient } from 'socket.io-client';
import { isLnswapError } from '../../../src/domain/errors.js';
import { busAdapter } from '../../../src/ws/bus-adapter.js';
import { forwardCancel } from '../../../src/ws/cancel-forwarder.js';
import { providerRoom } from '../../../src/ws/rooms.js';
import { parsePostgresUrl } from '../../../src/store/postgres/connection-url.js';
import { PostgresClusterBus } from '../../../src/store/postgres/cluster-bus.js';
import { silentLogger } from '../../support/ws/harness.js';
import { POSTGRES_URL, skipReason } from '../../support/stores.js';

function targetFor(schema: string) {
  return parsePostgresUrl(`${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the PostgreSQL cluster bus', { skip: skipReason('postgres') }, () => {
  const schema = `lnswap_test_bus_${randomBytes(6).toString('hex')}`;
  const buses: PostgresClusterBus[] = [];
  let sender: PostgresClusterBus;
  let receiver: PostgresClusterBus;
  let otherSchema: PostgresClusterBus;

  before(async () => {
    sender = new PostgresClusterBus(targetFor(schema), silentLogger);
    receiver = new PostgresClusterBus(targetFor(schema), silentLogger);
    otherSchema = new PostgresClusterBus(targetFor(`${schema}_other`), silentLogger);
    buses.push(sender, receiver, otherSchema);
    await Promise.all(buses.map((bus) => bus.start()));
  });

  after(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
  });

  test('messages of any size and script arrive whole and in order, to other instances of the schema only', async () => {
    const received: string[] = [];
    const echoed: string[] = [];
    const overheard: string[] = [];
    receiver.subscribe('/user/v1', (payload) => received.push(payload));
    sender.subscribe('/user/v1', (payload) => echoed.push(payload));
    otherSchema.subscribe('/user/v1', (payload) => overheard.push(payload));
    // Subscribing issues LISTEN on a connection that is already open: let it land.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const messages = [
      'small',
      // Far above one NOTIFY's 8000 bytes, with characters of 2, 3 and 4 bytes across every chunk boundary.
      'é€😀'.repeat(9_000),
      '',
      JSON.stringify({ type: 3, data: { packet: { data: ['stateChanged', { orderId: 'x' }] } } }),
    ];
    for (const message of messages) sender.publish('/user/v1', message);
    await until(() => received.length === messages.length, 'every message');
    assert.deepEqual(received, messages);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(echoed, [], 'an instance does not hear itself');
    assert.deepEqual(overheard, [], 'another schema does not hear this one');
  });

  test('many topics subscribed at once are listened to one after another, each heard, without a pg deprecation', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const topics = Array.from({ length: 8 }, (_, index) => `/burst-${index}`);
      const heard: string[] = [];
      for (const topic of topics) receiver.subscribe(topic, (payload) => heard.push(payload));
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const topic of topics) sender.publish(topic, topic);
      await until(() => heard.length === topics.length, 'a message on every topic');
      assert.deepEqual([...heard].sort(), [...topics].sort());
      assert.deepEqual(
        warnings.filter((message) => /already executing a query/.test(message)),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('an instance whose listening connection is killed reconnects and then sends what it queued meanwhile', async () => {
    const received: string[] = [];
    receiver.subscribe('/catch-up', (payload) => received.push(payload));
    // The sender's last statement on its listening connection names a topic of its own: that finds its pid.
    sender.subscribe(`/sender-${schema}`, () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
    await admin.connect();
    try {
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lnswap cluster bus' AND query LIKE $1",
        [`%/sender-${schema}%`],
      );
      assert.equal(killed.rowCount, 1);
    } finally {
      await admin.end();
    }
    await until(() => sender.connectedSince() === undefined, 'the sender to notice');
    sender.publish('/catch-up', 'sent while down');
    await until(() => sender.connectedSince() !== undefined, 'the sender to reconnect');
    await until(() => received.length === 1, 'the queued message');
    assert.deepEqual(received, ['sent while down']);
  });

  test("a user's cancel reaches the winning provider connected to another instance, and its answer comes back", async () => {
    const timing = { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 1_000 };
    const instances: { http: HttpServer; io: Server }[] = [];
    for (const bus of [sender, receiver]) {
      const http = createServer();
      const io = new Server(http, { adapter: busAdapter(bus, timing) });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      instances.push({ http, io });
    }
    const [a, b] = instances as [(typeof instances)[number], (typeof instances)[number]];
    const providers = a.io.of('/provider/v1');
    b.io.of('/provider/v1').on('connection', (socket) => void socket.join(providerRoom('maker-bo')));
    const provider = connectClient(`http://127.0.0.1:${(b.http.address() as AddressInfo).port}/provider/v1`, {
      transports: ['websocket'],
    });
    const asked: unknown[] = [];
    provider.on('cancelOrder', (payload: unknown, ack: (answer: unknown) => void) => {
      asked.push(payload);
      ack(asked.length === 1 ? { success: true } : { success: false, message: 'PaymentInProgress' });
    });
    try {
      await new Promise<void>((resolve) => provider.once('connect', () => resolve()));
      // The instances learn of each other from their heartbeats, once each listens on its namespace's topic.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const cancel = { orderId: '8b1d3e5c-0000-4000-8000-000000000001', funder: `0x${'a1'.repeat(20)}` };
      await forwardCancel(providers, { ...cancel, providerId: 'maker-bo' }, 3_000);
      assert.deepEqual(asked, [cancel], 'forwarded across instances, once');
      const refusal = await forwardCancel(providers, { ...cancel, providerId: 'maker-bo' }, 3_000).catch(
        (error: unknown) => error,
      );
      assert.ok(isLnswapError(refusal) && refusal.token === 'PaymentInProgress', String(refusal));
      const nobody = await forwardCancel(providers, { ...cancel, providerId: 'maker-al' }, 1_000).catch(
        (error: unknown) => error,
      );
      assert.ok(isLnswapError(nobody) && nobody.token === 'ProviderUnreachable', String(nobody));
    } finally {
      provider.close();
      for (const { io } of instances) await io.close();
    }
  });
});

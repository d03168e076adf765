import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
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
});

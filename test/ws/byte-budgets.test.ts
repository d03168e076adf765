import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { request, startTestService, type TestService } from '../support/ws/harness.js';
import { nestedArrayJson, RawPollingSession } from '../support/ws/raw-polling.js';

/** A broadcast of about this many bytes fits a fresh budget once, not twice. */
const BROADCAST_BYTES = 600_000;
const sockets = {
  bytesPerConnection: { burst: 900_000, perSecond: 150_000 },
  bytesPerAddress: { burst: 100_000_000, perSecond: 100_000_000 },
};
const WAIT_MS = 5_000;

function broadcast(hexBytes: number) {
  return { onchainTicker: 'BTC', signedTxHex: 'ab'.repeat(hexBytes >> 1) };
}

async function connectV4(url: string): Promise<Socket> {
  const socket = io(`${url}/user/v1`, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return socket;
}

/** Writes a packet as given (an engine.io message) and resolves with its ack, or how the connection ended. */
function rawEmit(
  socket: Socket,
  packet: string,
  ackId: number,
): Promise<{ ack: { success: boolean; message?: unknown } } | { closed: string }> {
  const prefix = `3/user/v1,${ackId}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('neither an ack nor a close')), WAIT_MS);
    socket.io.engine.on('message', (data: unknown) => {
      if (typeof data !== 'string' || !data.startsWith(prefix)) return;
      clearTimeout(timer);
      resolve({ ack: (JSON.parse(data.slice(prefix.length)) as [{ success: boolean; message?: unknown }])[0] });
    });
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve({ closed: reason });
    });
    socket.io.engine.send(packet);
  });
}

describe('byte budgets: charged before a packet is scanned', () => {
  let harness: TestService;

  before(async () => {
    harness = await startTestService('sqlite', { sockets });
  });
  after(async () => {
    await harness?.close();
  });

  test('over WebSocket, a broadcast the connection has no bytes left for is refused RateLimitExceeded; once paid back, it is served again', async () => {
    const socket = await connectV4(harness.service.url);
    try {
      const first = await socket.timeout(WAIT_MS).emitWithAck('broadcastTransaction', broadcast(BROADCAST_BYTES));
      // Within budget, the handler answers (no node for Bitcoin here), not the budget.
      assert.deepEqual(first, { success: false, message: 'NoBackendConfigured' });
      // 300,000 bytes owed at 150,000 a second: the rest of the message is read only as the budget pays it back.
      const started = Date.now();
      const second = await socket.timeout(WAIT_MS).emitWithAck('broadcastTransaction', broadcast(BROADCAST_BYTES));
      const waited = Date.now() - started;
      assert.deepEqual(second, { success: false, message: 'RateLimitExceeded' });
      assert.ok(waited >= 500, `refused after ${waited} ms: the connection was read on while it owed`);
      const requirements = (await socket.timeout(WAIT_MS).emitWithAck('requestMarketRequirements', null)) as {
        success: boolean;
      };
      assert.equal(requirements.success, true);
      assert.ok(socket.connected);
    } finally {
      socket.close();
    }
  });

  test('over long-polling, the same: RateLimitExceeded in the ack, the session kept', async () => {
    const session = await RawPollingSession.connect(harness.service.url, '/user/v1');
    try {
      const payload = JSON.stringify(broadcast(BROADCAST_BYTES));
      assert.deepEqual(await session.emit('broadcastTransaction', payload), {
        ack: { success: false, message: 'NoBackendConfigured' },
      });
      assert.deepEqual(await session.emit('broadcastTransaction', payload), {
        ack: { success: false, message: 'RateLimitExceeded' },
      });
      assert.deepEqual(
        await session
          .emit('requestMarketRequirements', 'null')
          .then((outcome) => 'ack' in outcome && outcome.ack.success),
        true,
      );
    } finally {
      session.close();
    }
  });

  test('a packet over budget that asks for no ack closes its connection', async () => {
    const socket = await connectV4(harness.service.url);
    const hex = 'ab'.repeat(BROADCAST_BYTES >> 1);
    const closed = new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('still connected'), WAIT_MS);
      socket.once('disconnect', (reason) => {
        clearTimeout(timer);
        resolve(reason);
      });
    });
    socket.io.engine.send(`2/user/v1,["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":"${hex}"}]`);
    socket.io.engine.send(`2/user/v1,["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":"${hex}"}]`);
    // Closed as socket.io's decoder closes on a packet it refuses: the transport, not a namespace.
    assert.equal(await closed, 'transport close');
  });

  test('an event other than broadcastTransaction is refused at 16 KiB from its header: a payload its scan would close on is answered', async () => {
    const socket = await connectV4(harness.service.url);
    try {
      // 40,000 deep: the nesting count would close the connection; the header refuses it first.
      const deep = nestedArrayJson(20_000);
      for (const event of ['requestQuote', 'subscribeToOrderState', 'noSuchEvent']) {
        assert.deepEqual(await rawEmit(socket, `2/user/v1,7["${event}",${deep}]`, 7), {
          ack: { success: false, message: 'PayloadTooLarge' },
        });
      }
      assert.equal((await request(socket, 'requestMarketRequirements', null)).success, true);
    } finally {
      socket.close();
    }
  });
});

import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Server } from 'socket.io';
import { LnswapError } from '../../src/domain/errors.js';
import { handleRequests, type RequestHandler } from '../../src/ws/requests.js';
import { eventually } from '../support/eventually.js';
import { connectClient, refusalOf, request, type Client } from '../support/ws/harness.js';

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  event?: string;
}

/** handleRequests on a real socket.io server, with handlers that fail in every way a handler can. */
describe('handleRequests', () => {
  const logs: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(JSON.parse(chunk.toString()) as LogLine);
        done();
      },
    }),
  );
  let httpServer: HttpServer;
  let io: Server;
  let url: string;
  const clients: Client[] = [];
  const lateFailures: string[] = [];
  // The hanging handler ends when the test lets it, so its answer is proven to come first on any machine.
  let releaseHang: () => void = () => {};

  const handlers: Record<string, RequestHandler> = {
    echo: async (payload) => payload,
    refuse: async () => {
      throw new LnswapError('InvalidOrderId');
    },
    // Not an async function: it throws when called instead of returning a rejected promise.
    throwAtOnce: (() => {
      throw new TypeError('handler bug');
    }) as RequestHandler,
    rejectLater: async () => {
      await sleep(5);
      throw new Error('database went away');
    },
    hang: async () => {
      await new Promise<void>((resolve) => (releaseHang = resolve));
      lateFailures.push('hang');
      throw new Error('failed after its answer was sent');
    },
    unsendable: async () => ({ amount: 1n }),
    requestId: async (_payload, context) => context.requestId,
  };

  before(async () => {
    httpServer = createServer();
    io = new Server(httpServer, { allowEIO3: true, serveClient: false });
    io.of('/test').on('connection', (socket) => {
      handleRequests(
        socket,
        handlers,
        {
          maxPayloadBytes: 1_000,
          maxPayloadDepth: 4,
          eventsPerConnection: { burst: 1_000, perSecond: 1_000 },
          takeAddressToken: () => Promise.resolve(true),
          requestTimeoutMs: 200,
          now: Date.now,
        },
        logger,
      );
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const client of clients) client.close();
    await io.close();
  });

  async function client(generation: 'v4' | 'v2' = 'v4'): Promise<Client> {
    const connected = await connectClient(url, '/test', generation);
    clients.push(connected);
    return connected;
  }

  function errorLogsOf(requestEvent: string): LogLine[] {
    return logs.filter((line) => line.level >= 50 && line.event === requestEvent);
  }

  test('answers results and refusals as before', async () => {
    const socket = await client();
    assert.deepEqual(await request(socket, 'echo', { a: [1] }), { success: true, message: { a: [1] } });
    assert.equal(await refusalOf(socket, 'refuse', {}), 'InvalidOrderId');
    assert.equal(errorLogsOf('refuse').length, 0, 'a refusal is no failure');
  });

  test('a handler that throws at once or rejects later answers InternalServerError, logged once with its request id', async () => {
    for (const generation of ['v4', 'v2'] as const) {
      const socket = await client(generation);
      for (const event of ['throwAtOnce', 'rejectLater']) {
        logs.length = 0;
        assert.deepEqual(await request(socket, event, {}), { success: false, message: 'InternalServerError' });
        const [line, ...more] = errorLogsOf(event);
        assert.equal(more.length, 0, `${event} logged more than once`);
        assert.match(line?.requestId ?? '', /^[0-9a-f-]{36}$/);
      }
      // The connection survives its failed requests.
      assert.equal((await request(socket, 'echo', 1)).success, true);
    }
  });

  test('a handler that runs past the bound answers InternalServerError in time; its late failure is swallowed', async () => {
    const socket = await client();
    logs.length = 0;
    assert.deepEqual(await request(socket, 'hang', {}), { success: false, message: 'InternalServerError' });
    assert.deepEqual(lateFailures, [], 'answered only when the handler ended');
    const [line, ...more] = errorLogsOf('hang');
    assert.equal(line?.msg, 'socket request timed out');
    assert.equal(more.length, 0);
    releaseHang();
    await eventually(() => assert.deepEqual(lateFailures, ['hang']), 'the late failure');
    await sleep(50);
    assert.equal(errorLogsOf('hang').length, 1, 'the late failure was logged again');
  });

  test('a result socket.io cannot send answers InternalServerError', async () => {
    const socket = await client();
    assert.deepEqual(await request(socket, 'unsendable', {}), { success: false, message: 'InternalServerError' });
  });

  test('unknown events, inherited names included, answer UnknownEvent at once', async () => {
    const socket = await client('v2');
    for (const event of ['broadcastTransaction', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      assert.equal(await refusalOf(socket, event, {}), 'UnknownEvent', event);
    }
  });

  test('payload bounds answer PayloadTooLarge and InvalidPayload before any handler runs', async () => {
    const socket = await client();
    assert.equal(await refusalOf(socket, 'echo', 'x'.repeat(1_000)), 'PayloadTooLarge');
    assert.equal(await refusalOf(socket, 'echo', [[[[[1]]]]]), 'InvalidPayload');
    assert.deepEqual(await request(socket, 'echo', [[[[1]]]]), { success: true, message: [[[[1]]]] });
  });

  test('each request has its own id; failures without a callback are logged and the connection goes on', async () => {
    const socket = await client();
    const first = await request(socket, 'requestId', null);
    const second = await request(socket, 'requestId', null);
    assert.notEqual(first.message, second.message);
    logs.length = 0;
    socket.emit('throwAtOnce', {});
    socket.emit('noSuchEvent', {});
    await sleep(50);
    assert.equal(errorLogsOf('throwAtOnce').length, 1);
    assert.equal((await request(socket, 'echo', 2)).success, true);
  });
});

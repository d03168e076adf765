import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { seedStore } from '../support/fixtures.js';
import { openFreshStore } from '../support/stores.js';
import { readAll, startCli, waitForLine } from '../support/cli/cli-process.js';

const SOCKETS = 1_000;
/** From the signal to the exit, on a loaded machine: the drain itself takes well under a second. */
const EXIT_WITHIN_MS = 10_000;

function servingUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'lnswap is serving' ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

function connect(url: string): Promise<Socket> {
  const socket = io(`${url}/user/v1`, { transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

test(
  `lnswap serve with ${SOCKETS} open sockets exits 0 within ${EXIT_WITHIN_MS} ms of SIGTERM, every socket closed`,
  { timeout: 120_000 },
  async (context) => {
    const fresh = await openFreshStore('sqlite');
    await seedStore(fresh.store, {});
    const child = startCli(['serve', '--db', fresh.url, '--port', '0', '--connections-per-address', String(SOCKETS)]);
    const sockets: Socket[] = [];
    try {
      const url = await waitForLine(child, servingUrl);
      const stdout = readAll(child.stdout);
      for (let batch = 0; batch < SOCKETS; batch += 100) {
        sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => connect(url)))));
      }
      assert.equal(sockets.filter((socket) => socket.connected).length, SOCKETS);
      const disconnected = Promise.all(
        sockets.map((socket) => new Promise((resolve) => socket.once('disconnect', resolve))),
      );
      const closed = once(child, 'close');
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      const [code] = await closed;
      const tookMs = Date.now() - signalledAt;
      assert.equal(code, 0);
      context.diagnostic(`exited ${tookMs} ms after SIGTERM with ${SOCKETS} sockets open`);
      assert.ok(tookMs < EXIT_WITHIN_MS, `exited ${tookMs} ms after SIGTERM`);
      await disconnected;
      assert.match(await stdout, /"msg":"stopped"/);
    } finally {
      for (const socket of sockets) socket.close();
      if (child.exitCode === null) child.kill('SIGKILL');
      await fresh.dispose();
    }
  },
);

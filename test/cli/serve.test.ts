import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OrderRecord } from '../../src/domain/order.js';
import { buildOrder, seedStore, uuidFor } from '../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS } from '../support/stores.js';
import { readAll, startCli, waitForLine } from '../support/cli/cli-process.js';

interface Response {
  status: number;
  body: string;
}

/** Resolves once the status line and headers are in; the body is left unread until the caller reads it. */
function startGet(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http.get(url, resolve).on('error', reject);
  });
}

async function get(url: string): Promise<Response> {
  const response = await startGet(url);
  return { status: response.statusCode ?? 0, body: await readAll(response) };
}

/**
 * So many orders for one invoice that their list (about 4 MB) cannot fit in the socket buffers of
 * a client that does not read: the server is still writing it when the signal comes.
 */
const ORDERS_ON_ONE_INVOICE = 10_000;

function ordersSharingAnInvoice(): OrderRecord[] {
  const { record } = buildOrder({ label: 'serve test', funds: [35590n] });
  return Array.from({ length: ORDERS_ON_ONE_INVOICE }, (_, index) => ({
    ...record,
    id: uuidFor(`serve test ${index}`),
    createdAt: record.createdAt + index,
    // One invoice has at most one live order; the earlier ones are history.
    state: index === ORDERS_ON_ONE_INVOICE - 1 ? record.state : 'FundWindowElapsed',
  }));
}

async function accepts(url: string): Promise<boolean> {
  return fetch(`${url}/api/markets`).then(
    () => true,
    () => false,
  );
}

function servingUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'lnswap is serving' ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

for (const kind of STORE_KINDS) {
  describe(`lnswap serve on ${kind}`, { skip: skipReason(kind) }, () => {
    const name = 'answers, and on SIGTERM stops accepting, finishes the in-flight response and exits 0';
    test(name, { timeout: 120_000 }, async () => {
      const fresh = await openFreshStore(kind);
      const orders = ordersSharingAnInvoice();
      await seedStore(fresh.store, { orders });
      const child = startCli(['serve', '--db', fresh.url, '--port', '0']);
      try {
        const url = await waitForLine(child, servingUrl);
        const stdout = readAll(child.stdout);
        const markets = await get(`${url}/api/markets`);
        assert.equal(markets.status, 200);
        assert.deepEqual(
          (JSON.parse(markets.body) as { market: string }[]).map((market) => market.market),
          ['BTC_LBTC', 'ETH_LBTC'],
        );

        // Headers in, body unread: the server is still writing this response when the signal comes.
        const inFlight = await startGet(`${url}/api/orders?invoiceHash=${orders[0]!.invoiceHash}`);
        assert.equal(inFlight.statusCode, 200);
        // Listening before the signal: the child may be gone before the body below is read.
        const closed = once(child, 'close');
        child.kill('SIGTERM');
        while (await accepts(url)) await sleep(50);

        const body = JSON.parse(await readAll(inFlight)) as { id: string }[];
        assert.equal(body.length, ORDERS_ON_ONE_INVOICE);
        assert.equal(new Set(body.map((order) => order.id)).size, ORDERS_ON_ONE_INVOICE);
        const [code] = await closed;
        assert.equal(code, 0);
        const log = await stdout;
        assert.match(log, /"signal":"SIGTERM".*"msg":"shutting down: finishing in-flight requests"/);
        assert.match(log, /"msg":"stopped"/);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await fresh.dispose();
      }
    });
  });
}

test('lnswap serve --metrics off answers the API without /metrics; on by default', { timeout: 60_000 }, async () => {
  const cases = [
    [['--metrics', 'off'], 404],
    [[], 200],
  ] as const;
  // Two independent processes, each on its own in-memory database: run side by side.
  await Promise.all(
    cases.map(async ([args, metricsStatus]) => {
      const child = startCli(['serve', '--db', 'sqlite::memory:', '--port', '0', ...args]);
      try {
        const url = await waitForLine(child, servingUrl);
        assert.equal((await get(`${url}/api/markets`)).status, 200);
        assert.equal(
          (await get(`${url}/metrics`)).status,
          metricsStatus,
          `/metrics with ${args.join(' ') || 'defaults'}`,
        );
      } finally {
        const closed = once(child, 'close');
        child.kill('SIGTERM');
        await closed;
      }
    }),
  );
});

/**
 * Restarts the local PostgreSQL cluster, so scripts/run-tests.mjs runs this file alone, after the others
 * (the `.exclusive.test.ts` suffix). It always leaves PostgreSQL running.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Quote, StateChanged } from '../../examples/user-client.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { startCli, waitForLine } from '../support/cli/cli-process.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import { configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, POSTGRES_URL, skipReason, type FreshStore } from '../support/stores.js';
import {
  addProvider,
  connectClient,
  eventually,
  recordEvents,
  request,
  succeed,
  type Client,
} from '../support/ws/harness.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { noLocalCluster, pgCluster, postgresIsRunning } from '../support/postgres-cluster.js';

const RECOVERY_LIMIT_MS = 10_000;

async function withAdmin<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  /** Every log line so far, parsed. */
  readonly log: { msg?: string; level?: number }[];
}

async function serve(databaseUrl: string): Promise<ServeProcess> {
  const child = startCli(['serve', '--db', databaseUrl, '--port', '0']);
  const url = await waitForLine(child, (line) => {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'lnswap is serving' ? entry.url : undefined;
  });
  const log: { msg?: string; level?: number }[] = [];
  let partial = '';
  // Read all along, so the child never blocks on a full pipe.
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) log.push(JSON.parse(line) as { msg?: string; level?: number });
  });
  child.stderr.resume();
  return { child, url, log };
}

async function getStatus(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

describe(
  'two lnswap serve processes on one PostgreSQL schema, through a database outage',
  { skip: skipReason('postgres') || noLocalCluster },
  () => {
    let fresh: FreshStore;
    const processes: ServeProcess[] = [];
    const clients: Client[] = [];
    const bots: RunningBot[] = [];

    before(async () => {
      fresh = await openFreshStore('postgres');
      await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
      // A and B serve through the outage; C is stopped during it.
      processes.push(...(await Promise.all([serve(fresh.url), serve(fresh.url), serve(fresh.url)])));
    });

    after(async () => {
      if (!postgresIsRunning()) await pgCluster('start');
      for (const client of clients) client.close();
      for (const { bot } of bots) bot.close();
      for (const { child } of processes) if (child.exitCode === null) child.kill('SIGKILL');
      await fresh?.dispose();
    });

    test(
      'both stay up, answer ServiceUnavailable while it is down, and serve across instances again within 10 s',
      { timeout: 120_000 },
      async () => {
        const [a, b, c] = processes as [ServeProcess, ServeProcess, ServeProcess];
        const keys = await addProvider(fresh.store, 'maker-on-b');
        bots.push(await runBot(b.url, keys, makerTerms('maker-on-b', 300n, 600_000)));
        const user = await connectClient(a.url, '/user/v1');
        const watcherOnB = await connectClient(b.url, '/user/v1');
        clients.push(user, watcherOnB);
        await eventually(
          async () => (await fresh.store.getConfiguration()).providers.some((p) => p.active),
          'the maker to be active',
        );
        const exits = processes.map(({ child }) => once(child, 'exit').then(([code]) => code as number | null));
        const exited = () => processes.filter(({ child }) => child.exitCode !== null || child.signalCode !== null);

        const terminated = await withAdmin(async (admin) => {
          const result = await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
          );
          return result.rowCount;
        });
        assert.ok(terminated !== null && terminated >= 4, `terminated ${terminated} connections`);
        await sleep(500);
        assert.deepEqual(exited(), [], 'no process exits when its connections are terminated');

        await pgCluster('stop');
        try {
          for (const { url } of processes) {
            assert.deepEqual(await getStatus(`${url}/api/orders/${randomUUID()}`), {
              status: 503,
              body: 'ServiceUnavailable',
            });
          }
          const invoice = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 }).invoice;
          const quoteRequest = { market: 'BTC_LBTC', invoice, refundAddress: refundAddressFor('user') };
          assert.deepEqual(await request(user, 'requestQuote', quoteRequest), {
            success: false,
            message: 'ServiceUnavailable',
          });
          assert.deepEqual(await request(watcherOnB, 'requestQuote', quoteRequest), {
            success: false,
            message: 'ServiceUnavailable',
          });
          await sleep(1_000);
          assert.deepEqual(exited(), [], 'no process exits while the database is down');
          const stopping = Date.now();
          c.child.kill('SIGTERM');
          assert.equal(await exits[2], 0, 'SIGTERM during the outage stops the process cleanly');
          assert.ok(Date.now() - stopping < 15_000, `SIGTERM during the outage took ${Date.now() - stopping} ms`);
        } finally {
          await pgCluster('start');
        }
        const backAt = Date.now();

        // Until both instances listen again a request may reach no provider: asked again until answered.
        const invoice = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 }).invoice;
        let quote: Quote | undefined;
        const refusals: unknown[] = [];
        while (quote === undefined && Date.now() - backAt < RECOVERY_LIMIT_MS) {
          const ack = await request(user, 'requestQuote', {
            market: 'BTC_LBTC',
            invoice,
            refundAddress: refundAddressFor('user'),
          });
          if (ack.success) quote = ack.message as Quote;
          else {
            refusals.push(ack.message);
            await sleep(100);
          }
        }
        const recoveredInMs = Date.now() - backAt;
        assert.ok(
          quote !== undefined && recoveredInMs <= RECOVERY_LIMIT_MS,
          `no quote ${recoveredInMs} ms after: ${refusals.join(', ')}`,
        );
        assert.ok(
          bots[0]!.requests.some((asked) => asked.orderId === quote!.orderId),
          'the maker on B answered',
        );

        const seenOnA = recordEvents<StateChanged>(user, 'stateChanged');
        const seenOnB = recordEvents<StateChanged>(watcherOnB, 'stateChanged');
        await succeed(user, 'subscribeToOrderState', { orderId: quote.orderId });
        await succeed(watcherOnB, 'subscribeToOrderState', { orderId: quote.orderId });
        // The fund window ends now: whichever instance sweeps first announces it to both.
        const schema = new URL(fresh.url).searchParams.get('schema');
        await withAdmin((admin) =>
          admin.query(`UPDATE "${schema}".orders SET expires_at = 0 WHERE id = $1`, [quote!.orderId]),
        );
        await eventually(() => seenOnA.length > 0 && seenOnB.length > 0, 'stateChanged on both instances');
        const elapsed = { orderId: quote.orderId, state: 'FundWindowElapsed', sequence: 2 };
        assert.deepEqual([seenOnA[0], seenOnB[0]], [elapsed, elapsed]);

        for (const { log } of [a, b]) {
          const messages = log.map((entry) => entry.msg);
          // The terminated connections and the stopped server may be two outages, if a request came between them.
          const outages = messages.filter((msg) => msg?.startsWith('store unavailable')).length;
          assert.ok(outages >= 1 && outages <= 2, `outages logged: ${outages}`);
          assert.equal(messages.filter((msg) => msg === 'store available again').length, outages);
          assert.deepEqual(
            log.filter((entry) => (entry.level ?? 0) >= 50 && !entry.msg?.startsWith('store unavailable')),
            [],
            'no other error logged',
          );
        }

        const started = Date.now();
        for (const { child } of [a, b]) child.kill('SIGTERM');
        assert.deepEqual(await Promise.all(exits.slice(0, 2)), [0, 0]);
        assert.ok(Date.now() - started < 15_000, 'SIGTERM does not hang');
      },
    );
  },
);

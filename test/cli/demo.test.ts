import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { anvilSkipReason } from '../support/anvil.js';
import { startCli } from './cli-process.js';

/** `curl -s URL` or `curl -s 'URL'` as printed by the demo. */
const CURL_LINE = /^ {2}curl -s '?(http:\/\/[^' ]+)'?$/;
/** A live order's state change: `live <8 hex> SETH_LSBTC <state> <cause>`. */
const LIVE_STATE_LINE = /^live ([0-9a-f]{8}) SETH_LSBTC (\w+)\b/;
const LIVE_SWAPS_DEADLINE_MS = 40_000;

/** Every stdout line of the child, as they come. */
function collectLines(child: ChildProcessWithoutNullStreams): {
  lines: string[];
  waitFor: (accept: (lines: readonly string[]) => boolean, timeoutMs: number) => Promise<void>;
} {
  const lines: string[] = [];
  let buffered = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    lines.push(...complete);
    for (const wake of waiters) wake();
  });
  const waitFor = (accept: (lines: readonly string[]) => boolean, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!accept(lines)) return;
        finish();
        resolve();
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`not seen within ${timeoutMs} ms; stdout:\n${lines.join('\n')}`));
      }, timeoutMs);
      const onClose = () => {
        finish();
        reject(new Error(`the demo exited; stdout:\n${lines.join('\n')}`));
      };
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
        child.off('close', onClose);
      };
      waiters.add(check);
      child.once('close', onClose);
      check();
    });
  return { lines, waitFor };
}

/** The banner's line pointing a browser at the tracker page: both its links open the page. */
async function assertTrackerPageLineWorks(lines: readonly string[]): Promise<void> {
  const line = lines.find((candidate) => candidate.startsWith('Follow orders in a browser: '));
  assert.ok(line, 'the banner names the tracker page');
  const urls = line.match(/http:\/\/[^\s)]+/g) ?? [];
  assert.equal(urls.length, 2, line);
  for (const url of urls) {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8', url);
  }
}

const curlUrls = (lines: readonly string[]) =>
  lines.map((line) => CURL_LINE.exec(line)?.[1]).filter((url): url is string => url !== undefined);

/** The three printed curl lines answer with the snapshot's telling records. */
async function assertCurlLinesWork(urls: readonly string[]): Promise<void> {
  const [orderUrl, ordersUrl, refundUrl] = urls as [string, string, string];
  const order = await fetch(orderUrl);
  assert.equal(order.status, 200);
  const completed = (await order.json()) as { state: string; paymentPreimage?: string };
  assert.equal(completed.state, 'Complete');
  assert.match(completed.paymentPreimage ?? '', /^[0-9a-f]{64}$/);

  const orders = await fetch(ordersUrl);
  assert.equal(orders.status, 200);
  const markets = ((await orders.json()) as { market: string }[]).map((item) => item.market).sort();
  assert.deepEqual(markets, ['BTC_LBTC', 'ETH_LBTC']);

  const refund = await fetch(refundUrl);
  assert.equal(refund.status, 200);
  const details = (await refund.json()) as { type: string; blocksRemaining: number; details: { utxos: unknown[] } };
  assert.equal(details.type, 'TimelockRefund');
  assert.equal(details.blocksRemaining, 0);
  assert.equal(details.details.utxos.length, 1);
}

async function offeredMarkets(demoUrl: string): Promise<string[]> {
  const response = await fetch(new URL('/api/markets', demoUrl));
  return ((await response.json()) as { market: string }[]).map((item) => item.market);
}

async function withDemoDirectory(work: (directory: string) => Promise<void>): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'lnswap-demo-'));
  try {
    await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const { why, anvilBinary, loudLine } of [
  {
    why: 'without Anvil',
    anvilBinary: '/nonexistent/anvil',
    loudLine:
      '*** LIVE SWAPS OFF: ANVIL_BINARY=/nonexistent/anvil is not an executable file. Serving the static demo only. ***',
  },
  {
    why: 'when Anvil cannot start',
    anvilBinary: '/bin/false',
    loudLine:
      '*** LIVE SWAPS OFF: Anvil did not start: Anvil exited (1) before listening. Serving the static demo only. ***',
  },
]) {
  test(`${why}, lnswap demo says why in one loud line and serves the static snapshot with three working curl lines`, async () => {
    await withDemoDirectory(async (directory) => {
      // Whatever was there before is replaced: this is not even a database.
      await mkdir(join(directory, 'data'));
      await writeFile(join(directory, 'data', 'demo.sqlite'), 'left over from an earlier run');
      const child = startCli(['demo', '--port', '0'], { cwd: directory, env: { ANVIL_BINARY: anvilBinary } });
      try {
        const { lines, waitFor } = collectLines(child);
        await waitFor((seen) => curlUrls(seen).length === 3, 20_000);
        assert.ok((await stat(join(directory, 'data', 'demo.sqlite'))).size > 0);
        assert.deepEqual(
          lines.filter((line) => line.includes('LIVE SWAPS OFF')),
          [loudLine],
        );
        await assertCurlLinesWork(curlUrls(lines));
        await assertTrackerPageLineWorks(lines);
        assert.equal(lines.filter((line) => line.startsWith('live ')).length, 0);
        const markets = await offeredMarkets(curlUrls(lines)[0]!);
        assert.deepEqual(markets, ['BTC_LBTC', 'ETH_LBTC'], "the snapshot's own markets are offered");

        child.kill('SIGTERM');
        const [code] = await once(child, 'close');
        assert.equal(code, 0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });
}

test(
  'lnswap demo runs live swaps on Anvil: one completes, one is refunded; the curl lines still work; SIGTERM stops Anvil too',
  { skip: anvilSkipReason, timeout: 90_000 },
  async () => {
    await withDemoDirectory(async (directory) => {
      const child = startCli(['demo', '--port', '0'], { cwd: directory });
      let anvilPid: number | undefined;
      try {
        const { lines, waitFor } = collectLines(child);
        const statesOf = (seen: readonly string[]) => {
          const states = new Map<string, string[]>();
          for (const line of seen) {
            const match = LIVE_STATE_LINE.exec(line);
            if (match === null) continue;
            const [, id, state] = match as unknown as [string, string, string];
            states.set(id, [...(states.get(id) ?? []), state]);
          }
          return [...states.values()];
        };
        const isHeader = (line: string) => line.startsWith('live swaps on SETH_LSBTC against Anvil');
        await waitFor((seen) => curlUrls(seen).length === 3 && seen.some(isHeader), 30_000);
        const header = lines.find(isHeader);
        anvilPid = Number(/\(pid (\d+)\)/.exec(header ?? '')?.[1]);
        assert.ok(isRunning(anvilPid), `Anvil runs while the demo does: ${header}`);
        await assertCurlLinesWork(curlUrls(lines));
        const markets = await offeredMarkets(curlUrls(lines)[0]!);
        assert.deepEqual(
          markets,
          ['BTC_LBTC', 'SETH_LSBTC'],
          'the test chain carries SETH_LSBTC, never the mainnet ETH_LBTC',
        );

        await waitFor((seen) => {
          const histories = statesOf(seen);
          return (
            histories.some((states) => states.includes('Complete')) &&
            histories.some((states) => states.includes('Refunded'))
          );
        }, LIVE_SWAPS_DEADLINE_MS);
        const histories = statesOf(lines);
        assert.ok(
          histories.some(
            (states) => states.join(' ') === 'WaitingForFundingTx WaitingForFundingTxConfirmation Funded Complete',
          ),
          'a swap went quoted → funded → Complete',
        );
        assert.ok(
          histories.some(
            (states) =>
              states.join(' ') ===
              'WaitingForFundingTx WaitingForFundingTxConfirmation Funded WaitingForRefundTx WaitingForRefundTxConfirmation Refunded',
          ),
          'a swap went quoted → funded → refund height → Refunded',
        );
        const completeLine = lines.find((line) => / Complete +preimage [0-9a-f]{64}$/.test(line));
        assert.ok(completeLine, 'the Complete line shows the preimage the claim revealed');

        child.kill('SIGTERM');
        const [code] = await once(child, 'close');
        assert.equal(code, 0);
        assert.equal(isRunning(anvilPid), false, 'no Anvil is left behind');
      } finally {
        // A demo killed outright cannot stop its Anvil: a failed test does it, so no node outlives the test.
        if (child.exitCode === null) child.kill('SIGKILL');
        if (anvilPid !== undefined && isRunning(anvilPid)) process.kill(anvilPid, 'SIGKILL');
      }
    });
  },
);

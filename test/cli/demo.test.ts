import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { parseDecimalAmount } from '../../src/domain/amounts.js';
import { anvilSkipReason } from '../support/anvil.js';
import { startCli } from './cli-process.js';

/** `curl -s URL` or `curl -s 'URL'` as printed by the demo. */
const CURL_LINE = /^ {2}curl -s '?(http:\/\/[^' ]+)'?$/;
/** A live order's state change: `live <8 hex> <market> <state> <cause>`. */
const LIVE_STATE_LINE = /^live ([0-9a-f]{8}) (SETH_LSBTC|SUSDC_LSBTC) (\w+)\b/;
const QUOTED_LINE = /^live ([0-9a-f]{8}) \w+ +WaitingForFundingTx +quoted ([0-9.]+) (SETH|SUSDC)$/;
const WON_LINE = /^live ([0-9a-f]{8}) {3}provider ([\w-]+): won the auction, claims pay (0x[0-9a-fA-F]{40})$/;
const PAID_LINE =
  /^live ([0-9a-f]{8}) {3}provider ([\w-]+): paid the invoice, claimed with its preimage, tx 0x[0-9a-f]{64}; payout (0x[0-9a-fA-F]{40}) holds ([0-9.]+) (SETH|SUSDC)$/;
const DECIMALS: Record<string, number> = { SETH: 18, SUSDC: 6 };
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
  'lnswap demo runs live swaps on Anvil: two providers each win and are paid, a token swap completes, one is refunded; the curl lines still work; SIGTERM stops Anvil too',
  { skip: anvilSkipReason, timeout: 90_000 },
  async () => {
    await withDemoDirectory(async (directory) => {
      const child = startCli(['demo', '--port', '0'], { cwd: directory });
      let anvilPid: number | undefined;
      try {
        const { lines, waitFor } = collectLines(child);
        const historiesOf = (seen: readonly string[]) => {
          const histories = new Map<string, { market: string; states: string[] }>();
          for (const line of seen) {
            const match = LIVE_STATE_LINE.exec(line);
            if (match === null) continue;
            const [, id, market, state] = match as unknown as [string, string, string, string];
            const history = histories.get(id) ?? { market, states: [] };
            history.states.push(state);
            histories.set(id, history);
          }
          return [...histories.values()].map(({ market, states }) => ({ market, states: states.join(' ') }));
        };
        const matches = (seen: readonly string[], pattern: RegExp) =>
          seen.map((line) => pattern.exec(line)).filter((match): match is RegExpExecArray => match !== null);
        const isHeader = (line: string) => line.startsWith('live swaps on SETH_LSBTC and SUSDC_LSBTC against Anvil');
        await waitFor((seen) => curlUrls(seen).length === 3 && seen.some(isHeader), 30_000);
        const header = lines.find(isHeader);
        anvilPid = Number(/\(pid (\d+)\)/.exec(header ?? '')?.[1]);
        assert.ok(isRunning(anvilPid), `Anvil runs while the demo does: ${header}`);
        await assertCurlLinesWork(curlUrls(lines));
        const markets = await offeredMarkets(curlUrls(lines)[0]!);
        assert.deepEqual(
          markets,
          ['BTC_LBTC', 'SETH_LSBTC', 'SUSDC_LSBTC'],
          'the test chain carries SETH_LSBTC and the demo token, never the mainnet ETH_LBTC',
        );

        const COMPLETE = 'WaitingForFundingTx WaitingForFundingTxConfirmation Funded Complete';
        const REFUNDED =
          'WaitingForFundingTx WaitingForFundingTxConfirmation Funded WaitingForRefundTx WaitingForRefundTxConfirmation Refunded';
        await waitFor((seen) => {
          const histories = historiesOf(seen);
          const paidProviders = new Set(matches(seen, PAID_LINE).map((match) => match[2]));
          return (
            histories.filter((history) => history.states === COMPLETE).length >= 3 &&
            histories.some((history) => history.states === REFUNDED) &&
            histories.some((history) => history.market === 'SUSDC_LSBTC' && history.states === COMPLETE) &&
            paidProviders.size === 2
          );
        }, LIVE_SWAPS_DEADLINE_MS);
        const histories = historiesOf(lines);
        assert.ok(
          histories.some((history) => history.market === 'SETH_LSBTC' && history.states === REFUNDED),
          'a swap went quoted → funded → refund height → Refunded',
        );
        assert.ok(
          histories.some((history) => history.market === 'SUSDC_LSBTC' && history.states === COMPLETE),
          'a token swap went quoted → funded → Complete',
        );
        const completeLine = lines.find((line) => / Complete +preimage [0-9a-f]{64}$/.test(line));
        assert.ok(completeLine, 'the Complete line shows the preimage the claim revealed');
        assert.ok(
          lines.some((line) =>
            /^live [0-9a-f]{8} {3}user: lets the swap contract take [0-9.]+ SUSDC, tx 0x/.test(line),
          ),
          'the token user approves before funding',
        );

        // Who won each order, and what it was quoted at.
        const quotes = new Map(
          matches(lines, QUOTED_LINE).map(([, id, amount, ticker]) => [
            id!,
            parseDecimalAmount(amount!, DECIMALS[ticker!]!)!,
          ]),
        );
        const winners = new Map(matches(lines, WON_LINE).map(([, id, name, payout]) => [id!, { name, payout }]));
        const payouts = new Map(matches(lines, WON_LINE).map(([, , name, payout]) => [name!, payout!]));
        assert.deepEqual([...payouts.keys()].sort(), ['maker-ada', 'maker-bo'], 'both providers won auctions');
        assert.notEqual(payouts.get('maker-ada'), payouts.get('maker-bo'), 'each provider is paid at its own address');
        // Each payout address starts empty; after every claim it holds exactly what it held plus the order's
        // quoted amount: the rise is the claim, paid to the winner.
        const balances = new Map<string, bigint>();
        const paidOrders = new Map<string, string[]>();
        for (const [, id, name, payout, holds, ticker] of matches(lines, PAID_LINE)) {
          assert.deepEqual(winners.get(id!), { name, payout }, `order ${id} is paid to its winner`);
          const key = `${payout} ${ticker}`;
          const expected = (balances.get(key) ?? 0n) + quotes.get(id!)!;
          assert.equal(parseDecimalAmount(holds!, DECIMALS[ticker!]!), expected, `the payout balance after ${id}`);
          balances.set(key, expected);
          paidOrders.set(name!, [...(paidOrders.get(name!) ?? []), `${ticker}`]);
        }
        assert.ok(paidOrders.get('maker-ada')?.includes('SETH'), 'maker-ada was paid in SETH');
        assert.ok(paidOrders.get('maker-bo')?.includes('SETH'), 'maker-bo was paid in SETH');
        assert.ok(
          [...paidOrders.values()].some((tickers) => tickers.includes('SUSDC')),
          'a provider was paid in the token',
        );

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

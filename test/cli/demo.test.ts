import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { formatFixedPoint, parseDecimalAmount } from '../../src/domain/amounts.js';
import { anvilSkipReason } from '../support/anvil.js';
import { startCli } from '../support/cli/cli-process.js';

/** `curl -s URL` or `curl -s 'URL'` as printed by the demo. */
const CURL_LINE = /^ {2}curl -s '?(http:\/\/[^' ]+)'?$/;
/** A live order's state change: `live <8 hex> <market> <state> <cause>`. */
const LIVE_STATE_LINE = /^live ([0-9a-f]{8}) (SETH_LSBTC|SUSDC_LSBTC) (\w+)\b/;
const QUOTED_LINE = /^live ([0-9a-f]{8}) \w+ +WaitingForFundingTx +quoted ([0-9.]+) (SETH|SUSDC)$/;
/** The provider daemon's own log line, printed under its order. */
const WON_LINE = /^live ([0-9a-f]{8}) {3}provider ([\w-]+): won the auction market=(\w+)$/;
const PROVIDER_LINE =
  /^live provider ([\w-]+), paid at (0x[0-9a-fA-F]{40}), runs the provider daemon as `lnswap provider --config (\S+) [^`]+` would, with LNSWAP_PROVIDER_API_KEY, LNSWAP_PROVIDER_SECRET_KEY and LNSWAP_PROVIDER_ETHEREUM_KEY set; metrics (http:\/\/\S+\/metrics)$/;
const PAYEE_LINE =
  /^live ([0-9a-f]{8}) {3}simulated Lightning payee: received payment (\d+) to this invoice, (\d+) sat; (settled it with the preimage|refused it)$/;
const CLAIM_LINE =
  /^live ([0-9a-f]{8}) {3}provider ([\w-]+)'s claim paid ([0-9.]+) (SETH|SUSDC) to its payout (0x[0-9a-fA-F]{40}), tx (0x[0-9a-f]{64}); it holds ([0-9.]+) (?:SETH|SUSDC)$/;
const PAY_PAGE_LINE =
  /^live pay an invoice of the simulated payee from a browser at (http:\/\/\S+\/pay); each pays once, a fresh one follows:$/;
const INVOICE_LINE = /^live invoice (lnbcrt\S+)$/;
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

/**
 * The pay page's address, which serves it, and at least two invoices of the simulated payee, each on its own line
 * and each for its own payment; the requirements name only the markets the live providers quote, once they have
 * connected (the snapshot's BTC_LBTC has nobody to quote it).
 */
async function assertPayPageOffered(
  lines: readonly string[],
  waitFor: (accept: (lines: readonly string[]) => boolean, timeoutMs: number) => Promise<void>,
): Promise<void> {
  await waitFor((seen) => seen.filter((line) => INVOICE_LINE.test(line)).length >= 2, 10_000);
  const payPage = lines.map((line) => PAY_PAGE_LINE.exec(line)?.[1]).find((url) => url !== undefined);
  assert.ok(payPage, 'the pay page is named');
  const page = await fetch(payPage);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>lnswap: pay a Lightning invoice<\/title>/);
  const invoices = lines.map((line) => INVOICE_LINE.exec(line)?.[1]).filter((invoice) => invoice !== undefined);
  const paymentHashes = invoices.map((invoice) => /pp5([02-9ac-hj-np-z]{52})/.exec(invoice)?.[1]);
  assert.equal(new Set(paymentHashes).size, invoices.length, 'one payment hash per invoice');
  const requirements = await fetch(new URL('/api/markets/requirements', payPage));
  const served = ((await requirements.json()) as { market: string }[]).map((item) => item.market);
  assert.deepEqual(served, ['SETH_LSBTC', 'SUSDC_LSBTC'], 'only the markets a connected provider quotes');
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
  'lnswap demo runs the provider daemon on Anvil: each provider wins, pays the simulated payee once per invoice and claims what the user funded; a token swap completes, one is refunded cooperatively at once; the curl lines still work; SIGTERM stops Anvil too',
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
          return [...histories.entries()].map(([id, { market, states }]) => ({ id, market, states: states.join(' ') }));
        };
        const matches = (seen: readonly string[], pattern: RegExp) =>
          seen.map((line) => pattern.exec(line)).filter((match): match is RegExpExecArray => match !== null);
        const isHeader = (line: string) => line.startsWith('live swaps on SETH_LSBTC and SUSDC_LSBTC against Anvil');
        await waitFor(
          (seen) => curlUrls(seen).length === 3 && seen.some(isHeader) && matches(seen, PROVIDER_LINE).length === 2,
          30_000,
        );
        const header = lines.find(isHeader);
        anvilPid = Number(/\(pid (\d+)\)/.exec(header ?? '')?.[1]);
        assert.ok(isRunning(anvilPid), `Anvil runs while the demo does: ${header}`);
        const rpcUrl = / at (http:\/\/127\.0\.0\.1:\d+),/.exec(header ?? '')?.[1];
        assert.ok(rpcUrl, header);
        assert.ok(
          lines.some((line) => line.startsWith('live SIMULATED Lightning: ')),
          'the simulated part is named as such',
        );
        await assertCurlLinesWork(curlUrls(lines));
        const markets = await offeredMarkets(curlUrls(lines)[0]!);
        assert.deepEqual(
          markets,
          ['BTC_LBTC', 'SETH_LSBTC', 'SUSDC_LSBTC'],
          'the test chain carries SETH_LSBTC and the demo token, never the mainnet ETH_LBTC',
        );
        await assertPayPageOffered(lines, waitFor);

        const COMPLETE = 'WaitingForFundingTx WaitingForFundingTxConfirmation Funded Complete';
        const REFUNDED =
          'WaitingForFundingTx WaitingForFundingTxConfirmation Funded WaitingForRefundTx WaitingForRefundTxConfirmation Refunded';
        await waitFor((seen) => {
          const histories = historiesOf(seen);
          const complete = histories.filter((history) => history.states === COMPLETE);
          const claimed = new Set(matches(seen, CLAIM_LINE).map((match) => match[1]));
          return (
            complete.length >= 3 &&
            complete.every((history) => claimed.has(history.id)) &&
            histories.some((history) => history.states === REFUNDED) &&
            complete.some((history) => history.market === 'SUSDC_LSBTC') &&
            new Set(matches(seen, CLAIM_LINE).map((match) => match[2])).size === 2
          );
        }, LIVE_SWAPS_DEADLINE_MS);
        const histories = historiesOf(lines);
        const completed = histories.filter((history) => history.states === COMPLETE);
        const refunded = histories.filter((history) => history.states === REFUNDED);
        assert.ok(
          refunded.some((history) => history.market === 'SETH_LSBTC'),
          'a swap went quoted → funded → refund signed by the provider → Refunded',
        );
        // Refunded cooperatively: the provider's signed refund sent at once, not the timelock's, the balance printed.
        for (const { id } of refunded) {
          const ofOrder = lines.filter((line) => line.startsWith(`live ${id} `));
          const taken = ofOrder
            .map((line) => / mined (\d+) ms later$/.exec(line))
            .find(
              (match) => match !== null && match.input.includes('takes the coins back at once (refundCooperative)'),
            );
          assert.ok(taken, `order ${id} refunded cooperatively: ${ofOrder.join('\n')}`);
          assert.ok(Number(taken[1]) < 10_000, `the refund mined ${taken[1]} ms after it was asked for`);
          assert.ok(
            ofOrder.some((line) => / user: balance back to [0-9.]+ SETH$/.test(line)),
            "the user's balance printed back",
          );
          assert.ok(!ofOrder.some((line) => line.includes('the refund height has passed')), 'no timelock refund');
        }
        assert.ok(
          lines.some((line) => / Complete +preimage [0-9a-f]{64}$/.test(line)),
          'the Complete line shows the preimage the claim revealed',
        );
        assert.ok(
          lines.some((line) =>
            /^live [0-9a-f]{8} {3}user: lets the swap contract take [0-9.]+ SUSDC, tx 0x/.test(line),
          ),
          'the token user approves before funding',
        );

        // The payee saw exactly one payment per invoice: settled for each completed order, refused for the refunded.
        const payments = matches(lines, PAYEE_LINE);
        assert.deepEqual(
          payments.filter((match) => match[2] !== '1').map((match) => match[0]),
          [],
          'no invoice is paid twice',
        );
        const paymentsOf = (id: string) => payments.filter((match) => match[1] === id).map((match) => match[4]);
        for (const { id } of completed) {
          assert.deepEqual(paymentsOf(id), ['settled it with the preimage'], `order ${id} paid once`);
        }
        for (const { id } of refunded) assert.deepEqual(paymentsOf(id), ['refused it'], `order ${id} tried once`);

        // Who won each order (the daemons' own log lines), at what price, and where each provider is paid.
        const quotes = new Map(
          matches(lines, QUOTED_LINE).map(([, id, amount, ticker]) => [
            id!,
            parseDecimalAmount(amount!, DECIMALS[ticker!]!)!,
          ]),
        );
        const winners = new Map(matches(lines, WON_LINE).map(([, id, name]) => [id!, name!]));
        const providers = new Map(
          matches(lines, PROVIDER_LINE).map(([, name, payout, configFile, metrics]) => [
            name!,
            { configFile: configFile!, payout: payout!, metrics: metrics! },
          ]),
        );
        assert.deepEqual([...providers.keys()].sort(), ['maker-ada', 'maker-bo']);
        assert.deepEqual(
          [
            ...new Set(
              completed.filter((order) => order.market === 'SETH_LSBTC').map((order) => winners.get(order.id)),
            ),
          ].sort(),
          ['maker-ada', 'maker-bo'],
          'each provider won and completed an SETH_LSBTC order',
        );
        for (const { configFile } of providers.values()) {
          const config = JSON.parse(await readFile(join(directory, configFile), 'utf8')) as {
            lightning: { kind: string; url: string };
          };
          assert.equal(config.lightning.kind, 'lnd');
          assert.match(config.lightning.url, /^https:\/\/127\.0\.0\.1:\d+$/);
        }

        // Each claim pays the winner's payout exactly the quoted amount. The payout account also pays its claims'
        // gas, so in ether its balance at a claim's block is the one before plus the block's claims minus its gas;
        // in the token, which it starts without, the sum of its claims.
        const client = createPublicClient({ transport: http(rpcUrl) });
        const claimsByBlock = new Map<string, { payout: Address; amounts: bigint[]; holds: Set<string> }>();
        const tokenClaims = new Map<string, bigint>();
        for (const [, id, name, amount, ticker, payout, hash, holds] of matches(lines, CLAIM_LINE)) {
          assert.equal(winners.get(id!), name, `order ${id} is claimed for its winner`);
          assert.equal(payout, providers.get(name!)?.payout, `order ${id} pays ${name}'s payout address`);
          const claimed = parseDecimalAmount(amount!, DECIMALS[ticker!]!)!;
          assert.equal(claimed, quotes.get(id!), `order ${id}'s claim pays what the user was quoted`);
          if (ticker === 'SUSDC') {
            const total = (tokenClaims.get(payout!) ?? 0n) + claimed;
            tokenClaims.set(payout!, total);
            assert.equal(parseDecimalAmount(holds!, 6), total, `the payout's token balance after ${id}`);
            continue;
          }
          const { blockNumber } = await client.getTransactionReceipt({ hash: hash as Hex });
          const key = `${payout} ${blockNumber}`;
          const group = claimsByBlock.get(key) ?? { payout: payout as Address, amounts: [], holds: new Set() };
          group.amounts.push(claimed);
          group.holds.add(holds!);
          claimsByBlock.set(key, group);
        }
        for (const [key, { payout, amounts, holds }] of claimsByBlock) {
          const blockNumber = BigInt(key.split(' ')[1]!);
          const before = await client.getBalance({ address: payout, blockNumber: blockNumber - 1n });
          const block = await client.getBlock({ blockNumber, includeTransactions: true });
          let gas = 0n;
          for (const transaction of block.transactions) {
            if (transaction.from.toLowerCase() !== payout.toLowerCase()) continue;
            const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
            gas += receipt.gasUsed * receipt.effectiveGasPrice;
          }
          const expected = before + amounts.reduce((sum, amount) => sum + amount, 0n) - gas;
          assert.deepEqual([...holds], [formatFixedPoint(expected, 18)], `the payout's ether balance at block ${key}`);
        }

        // The daemon's own metrics: the payments it made, by outcome.
        for (const [name, { metrics }] of providers) {
          const text = await (await fetch(metrics)).text();
          assert.match(text, /^lnswap_provider_payments\{outcome="succeeded"\} [1-9]/m, `${name} counts its payments`);
        }

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

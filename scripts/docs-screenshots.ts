/**
 * Regenerates docs/screenshots/*.png: the tracker page's views on the demo store, and the pay page paying an
 * invoice of the live demo with a wallet injected as the tests inject it, in headless Chromium.
 * `npm run docs:screenshots`; the README shows them.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { startCli } from '../test/support/cli/cli-process.js';
import { chromiumSkipReason, launchChromium } from '../test/support/chromium.js';
import { DEMO_SNAPSHOT, startDemoService } from '../test/support/demo-service.js';
import { injectWallet } from '../test/support/injected-wallet.js';
import { startLiveDemoService } from '../test/support/live-demo-service.js';
import { anvilSkipReason } from '../test/support/anvil.js';
import { DEMO_CHAIN_ID } from '../src/demo/ethereum/local-chain.js';

const OUTPUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

interface SnapshotOrder {
  readonly id: string;
  readonly market: string;
  readonly invoice: string;
  readonly state: string;
}

async function demoOrders(): Promise<SnapshotOrder[]> {
  const snapshot = JSON.parse(await readFile(DEMO_SNAPSHOT, 'utf8')) as { orders: SnapshotOrder[] };
  return snapshot.orders;
}

function pick(orders: readonly SnapshotOrder[], market: string, state: string): SnapshotOrder {
  const found = orders.find((order) => order.market === market && order.state === state);
  if (found === undefined) throw new Error(`the demo snapshot has no ${market} order in ${state}`);
  return found;
}

async function capture(page: Page, url: string, name: string, ready: string): Promise<void> {
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  await page.screenshot({ path: join(OUTPUT, name), fullPage: true });
  process.stdout.write(`wrote docs/screenshots/${name}\n`);
}

/** Waits for a line of the child's stdout matching `pattern`; rejects when the child exits or time runs out. */
function stdoutLines(
  child: ReturnType<typeof startCli>,
): (pattern: RegExp, timeoutMs: number) => Promise<RegExpExecArray> {
  const lines: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  return async (pattern, timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match !== null) return match;
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no line matching ${String(pattern)}; stdout:\n${lines.join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
}

/**
 * `lnswap demo` itself, with its live swaps on Anvil: an order that was funded, not paid and refunded, every
 * step made by the chain watcher. Skipped, saying why, when the demo runs without live swaps.
 */
async function captureLiveOrder(page: Page): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'lnswap-screenshots-'));
  const child = startCli(['demo', '--port', '0'], { cwd: directory });
  try {
    const waitFor = stdoutLines(child);
    const [, url] = await waitFor(/serving at (http:\/\/\S+)/, 30_000);
    const off = await waitFor(/^\*\*\* LIVE SWAPS OFF.*|^live swaps on /, 30_000);
    if (off[0].startsWith('***')) {
      process.stdout.write(`skipped docs/screenshots/live-order.png: ${off[0]}\n`);
      return;
    }
    const [, prefix] = await waitFor(/^live ([0-9a-f]{8}) SETH_LSBTC Refunded\b/, 90_000);
    const database = new Database(join(directory, 'data', 'demo.sqlite'), { readonly: true });
    const row = database.prepare('SELECT id FROM orders WHERE id LIKE ?').get(`${prefix}%`) as { id: string };
    database.close();
    await page.goto(`${url}/orders/${row.id}`);
    await page.locator('.timeline li[data-state="Refunded"]').waitFor();
    await page.screenshot({ path: join(OUTPUT, 'live-order.png'), fullPage: true });
    process.stdout.write('wrote docs/screenshots/live-order.png\n');
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The pay page on the live demo (Anvil and the two provider daemons, in this process): an invoice read and quoted,
 * paid from the wallet to Complete; on a phone, an invoice no market takes, explained.
 */
async function capturePayPage(desktopPage: Page, phonePage: Page): Promise<void> {
  const anvilSkip = anvilSkipReason;
  if (anvilSkip !== false) {
    process.stdout.write(`skipped the pay page's screenshots: ${anvilSkip}\n`);
    return;
  }
  const live = await startLiveDemoService();
  try {
    await injectWallet(desktopPage, live.prepared.chain.users.ether, live.prepared.chain.anvil.rpcUrl, DEMO_CHAIN_ID);
    await desktopPage.goto(`${live.service.url}/pay`);
    await desktopPage.fill('#invoice', live.swaps.payee.createInvoice(21_000, true).invoice);
    await desktopPage.click('#invoice-form button[type=submit]');
    await desktopPage.click('li.fit[data-market="SETH_LSBTC"] button');
    await desktopPage.locator('[data-field="amount"]').waitFor();
    await desktopPage.screenshot({ path: join(OUTPUT, 'pay-quote.png'), fullPage: true });
    process.stdout.write('wrote docs/screenshots/pay-quote.png\n');
    await desktopPage.click('#pay-with-wallet');
    await desktopPage.locator('#done:not([hidden])').waitFor({ timeout: 60_000 });
    await desktopPage.screenshot({ path: join(OUTPUT, 'pay-complete.png'), fullPage: true });
    process.stdout.write('wrote docs/screenshots/pay-complete.png\n');
    await phonePage.goto(`${live.service.url}/pay`);
    await phonePage.fill('#invoice', live.swaps.payee.createInvoice(500, true).invoice);
    await phonePage.click('#invoice-form button[type=submit]');
    await phonePage.locator('li.misfit').first().waitFor();
    await phonePage.screenshot({ path: join(OUTPUT, 'pay-phone.png'), fullPage: true });
    process.stdout.write('wrote docs/screenshots/pay-phone.png\n');
  } finally {
    await live.close();
  }
}

const skip = chromiumSkipReason();
if (skip !== false) throw new Error(skip);
const orders = await demoOrders();
const sharedInvoice = orders.find((order) => orders.filter((other) => other.invoice === order.invoice).length > 1);
if (sharedInvoice === undefined) throw new Error('the demo snapshot has no invoice quoted on two markets');
const demo = await startDemoService();
const desktop = await launchChromium({ width: 1024, height: 800 });
const phone = await launchChromium({ width: 375, height: 667 });
try {
  const page = await desktop.context.newPage();
  const base = demo.service.url;
  await page.goto(`${base}/`);
  await page.getByLabel('Lightning invoice').fill(sharedInvoice.invoice);
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.locator('article.order .timeline').nth(1).waitFor();
  await page.screenshot({ path: join(OUTPUT, 'tracker-invoice.png'), fullPage: true });
  process.stdout.write('wrote docs/screenshots/tracker-invoice.png\n');
  await capture(
    page,
    `${base}/orders/${pick(orders, 'BTC_LBTC', 'WaitingForFundingTx').id}`,
    'tracker-order.png',
    '.qr svg',
  );
  const refunding = pick(orders, 'BTC_LBTC', 'WaitingForRefundTx');
  await capture(page, `${base}/orders/${refunding.id}`, 'tracker-refund.png', '.refund');
  await capture(page, `${base}/markets`, 'markets.png', 'li.market');
  await captureLiveOrder(page);
  const small = await phone.context.newPage();
  await capture(small, `${base}/orders/${pick(orders, 'ETH_LBTC', 'WaitingForFundingTx').id}`, 'phone.png', '.qr svg');
  await capturePayPage(await desktop.context.newPage(), await phone.context.newPage());
} finally {
  await phone.close();
  await desktop.close();
  await demo.close();
}

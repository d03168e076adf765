/**
 * Regenerates docs/screenshots/*.png: the tracker page's views on the demo store, in headless Chromium.
 * `npm run docs:screenshots`; the README shows them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium } from '../test/support/chromium.js';
import { DEMO_SNAPSHOT, startDemoService } from '../test/support/demo-service.js';

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
  // A move made the way the chain watcher makes them, so the timeline shows a step with its cause.
  const timeline = page.locator('.timeline li');
  const refundTxId = 'c0ffee'.padEnd(64, '5');
  await demo.service.transitions.apply({
    orderId: refunding.id,
    from: 'WaitingForRefundTx',
    to: 'WaitingForRefundTxConfirmation',
    at: Date.now(),
    cause: { source: 'chain', reason: 'refundSeen', chain: 'bitcoin', txId: refundTxId },
    transaction: { type: 'REFUND', id: refundTxId },
  });
  await timeline.nth(1).waitFor();
  await page.screenshot({ path: join(OUTPUT, 'tracker-timeline.png'), fullPage: true });
  process.stdout.write('wrote docs/screenshots/tracker-timeline.png (moved live, without a reload)\n');
  await capture(page, `${base}/markets`, 'markets.png', 'li.market');
  const small = await phone.context.newPage();
  await capture(small, `${base}/orders/${pick(orders, 'ETH_LBTC', 'WaitingForFundingTx').id}`, 'phone.png', '.qr svg');
} finally {
  await phone.close();
  await desktop.close();
  await demo.close();
}

/**
 * The pay page in a real Chromium against the live demo (Anvil, the swap contract, the demo token, two provider
 * daemons paying a simulated payee), with a browser wallet injected at `window.ethereum` that signs with an Anvil
 * account: swaps paid from the page to Complete, a failed payment refunded from the page, a wallet on another chain
 * asked to switch, and invoices the markets cannot take explained.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DEMO_CHAIN_ID, type DemoWallet } from '../../src/demo/ethereum/local-chain.js';
import { anvilSkipReason } from '../support/anvil.js';
import { chromiumSkipReason, launchChromium, type Chromium } from '../support/chromium.js';
import { injectSwitchableWallet, type InjectedWallet, type UseWallet } from '../support/injected-wallet.js';
import { startLiveDemoService, type LiveDemoService } from '../support/live-demo-service.js';

const SWAP_TIMEOUT_MS = 60_000;
const INVOICE_LINE = /^live invoice (ln\S+)$/;

const skip = chromiumSkipReason() || anvilSkipReason;

describe('the pay page in Chromium on the live demo', { skip, timeout: 240_000 }, () => {
  let demo: LiveDemoService;
  let browser: Chromium;
  // One page for every visit, each user's wallet chosen before its visit: a page opened per test cost Chromium
  // about half a CPU-second each.
  let page: Page;
  let useWallet: UseWallet;

  before(async () => {
    demo = await startLiveDemoService();
    browser = await launchChromium({ width: 390, height: 844 });
    page = await browser.context.newPage();
    useWallet = await injectSwitchableWallet(page, demo.prepared.chain.anvil.rpcUrl);
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  const printedInvoices = () =>
    demo.lines
      .map((line) => INVOICE_LINE.exec(line)?.[1])
      .filter((invoice): invoice is string => invoice !== undefined);

  async function openWithWallet(
    wallet: DemoWallet,
    chainId: number,
  ): Promise<{ page: Page; injected: InjectedWallet }> {
    const injected = useWallet(wallet, chainId);
    await page.goto(`${demo.service.url}/pay`);
    return { page, injected };
  }

  async function readInvoice(page: Page, invoice: string): Promise<void> {
    await page.fill('#invoice', invoice);
    await page.click('#invoice-form button[type=submit]');
    // Locators, not waitForFunction: its polling evaluates strings, which the page's CSP forbids.
    await page.locator('#invoice-status', { hasText: /:$/ }).waitFor();
  }

  async function quote(page: Page, market: string): Promise<string> {
    await page.click(`li.fit[data-market="${market}"] button`);
    await page.waitForSelector('[data-field="amount"]', { timeout: 10_000 });
    return (await page.textContent('[data-field="amount"]')) ?? '';
  }

  async function orderState(page: Page, wanted: string): Promise<void> {
    await page.waitForSelector(`article.order[data-state="${wanted}"]`, { timeout: SWAP_TIMEOUT_MS });
  }

  test('the requirements and the page offer only the markets a connected provider quotes', async () => {
    const response = await fetch(`${demo.service.url}/api/markets/requirements`);
    const markets = ((await response.json()) as { market: string }[]).map((item) => item.market);
    assert.deepEqual(markets, ['SETH_LSBTC', 'SUSDC_LSBTC'], "the snapshot's BTC_LBTC has no provider to quote it");
  });

  test('an ether swap paid from the page with a printed invoice reaches Complete, shows the preimage, and a fresh invoice is printed', async () => {
    const [invoice, other] = printedInvoices();
    assert.ok(invoice !== undefined && other !== undefined, `two invoices printed at start:\n${demo.lines.join('\n')}`);
    const { page } = await openWithWallet(demo.prepared.chain.users.ether, DEMO_CHAIN_ID);
    await readInvoice(page, invoice);
    assert.equal(await page.textContent('#invoice-status'), 'This invoice can be paid on 2 markets:');
    const amount = await quote(page, 'SETH_LSBTC');
    assert.match(amount, /^0\.00\d+ SETH$/);
    assert.match((await page.textContent('#countdown')) ?? '', /^\d+ min \d{2} s$/);
    await page.click('#pay-with-wallet');
    await page.waitForSelector('#done:not([hidden])', { timeout: SWAP_TIMEOUT_MS });
    const preimage = (await page.textContent('#done code')) ?? '';
    const paymentHash = /^[0-9a-f]{64}$/.test(preimage)
      ? createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
      : '';
    const order = (await (await fetch(`${demo.service.url}/api/orders/${await orderId(page)}`)).json()) as {
      paymentHash: string;
      state: string;
    };
    assert.equal(order.state, 'Complete');
    assert.equal(paymentHash, order.paymentHash, 'the preimage shown is the proof of payment');
    // The page polls its wallet for the receipt on its own clock: the service may see the block first. Polled from
    // here: a string predicate would be evaluated in the page, where the CSP refuses eval.
    await waitFor(
      async () => /Funding: \d+ confirmations?/.test((await page.textContent('.wallet-step[data-hash]')) ?? ''),
      'the funding shown with its confirmations',
    );
    await waitFor(() => printedInvoices().length >= 3, 'a fresh invoice once one has its order');

    // The same invoice again: the service refuses (SwapAlreadyInProgress), and the page says so in a sentence.
    await readInvoice(page, invoice);
    await page.click('li.fit[data-market="SETH_LSBTC"] button');
    await page.locator('#quote-status', { hasText: /^This invoice already/ }).waitFor();
    assert.equal(
      await page.textContent('#quote-status'),
      'This invoice already has a swap; follow it on the tracker page or ask for a new invoice.',
    );
    assert.ok(!printedInvoices().slice(2).includes(invoice));
  });

  test('a token swap sends the approval then the funding from the wallet and reaches Complete', async () => {
    const { page, injected } = await openWithWallet(demo.prepared.chain.users.token, DEMO_CHAIN_ID);
    await readInvoice(page, demo.swaps.payee.createInvoice(23_000, true).invoice);
    assert.match(await quote(page, 'SUSDC_LSBTC'), /^6\.9\d+ SUSDC$/);
    await page.click('#pay-with-wallet');
    await page.waitForSelector('#done:not([hidden])', { timeout: SWAP_TIMEOUT_MS });
    const steps = await page.locator('.wallet-step').allTextContents();
    assert.deepEqual(
      steps.map((step) => step.split(':')[0]),
      ['Approval', 'Funding'],
    );
    assert.equal(injected.sent.length, 2);
    await orderState(page, 'Complete');
  });

  test('a payment the payee refuses is refunded from the page at once: the provider signed the refund away', async () => {
    const { page, injected } = await openWithWallet(demo.prepared.chain.users.refunding, DEMO_CHAIN_ID);
    await readInvoice(page, demo.swaps.payee.createInvoice(24_000, false).invoice);
    await quote(page, 'SETH_LSBTC');
    await page.click('#pay-with-wallet');
    await page.locator('#refund-status', { hasText: 'the provider released your coins' }).waitFor({
      timeout: SWAP_TIMEOUT_MS,
    });
    await page.waitForSelector('#refund-button:not([disabled])');
    await page.click('#refund-button');
    await orderState(page, 'Refunded');
    assert.equal(injected.sent.length, 2, 'the funding, then the refund');
    const refund = await demo.prepared.chain.publicClient.getTransaction({ hash: injected.sent[1]! });
    assert.equal(refund.input.slice(0, 10), '0xd11f56ec', 'refundCooperative, not the timelock refund');
  });

  test('a wallet on another chain is asked to switch, and a refusal to switch is explained with nothing sent', async () => {
    const { page, injected } = await openWithWallet(demo.prepared.chain.users.ether, 1);
    injected.acceptSwitch = false;
    await readInvoice(page, demo.swaps.payee.createInvoice(25_000, true).invoice);
    await quote(page, 'SETH_LSBTC');
    await page.click('#pay-with-wallet');
    await page.waitForSelector('#pay-with-wallet:not([disabled])');
    const switches = injected.calls.filter((call) => call.method === 'wallet_switchEthereumChain');
    assert.deepEqual(
      switches.map((call) => call.params),
      [[{ chainId: `0x${DEMO_CHAIN_ID.toString(16)}` }]],
    );
    assert.equal(await page.textContent('#wallet-status'), 'The wallet refused the request.');
    assert.deepEqual(injected.sent, []);

    injected.acceptSwitch = true;
    await page.click('#pay-with-wallet');
    await page.waitForSelector('#done:not([hidden])', { timeout: SWAP_TIMEOUT_MS });
    assert.equal(injected.chainId, DEMO_CHAIN_ID);
  });

  test('an invoice below every minimum is explained as sentences, and offers no market', async () => {
    const { page } = await openWithWallet(demo.prepared.chain.users.ether, DEMO_CHAIN_ID);
    await readInvoice(page, demo.swaps.payee.createInvoice(500, true).invoice);
    assert.equal(await page.textContent('#invoice-status'), 'No market can pay this invoice:');
    const reasons = await page.locator('li.misfit').allTextContents();
    assert.deepEqual(reasons, [
      'SETH_LSBTC pays invoices of 1000 sat or more, and this one asks for 500 sat.',
      'SUSDC_LSBTC pays invoices of 1000 sat or more, and this one asks for 500 sat.',
    ]);
    assert.equal(await page.locator('li.fit').count(), 0);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 390, 'nothing wider than the phone');

    await page.fill('#invoice', 'lnbc1notaninvoice');
    await page.click('#invoice-form button[type=submit]');
    await page.locator('#invoice-status', { hasText: /^That is not/ }).waitFor();
  });
});

async function orderId(page: Page): Promise<string> {
  return (await page.getAttribute('article.order', 'data-order-id')) ?? '';
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

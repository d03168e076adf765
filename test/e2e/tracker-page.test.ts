/**
 * The order tracker page in a real Chromium against the service on the demo store: look-ups, live moves
 * without a reload, QR codes decoded from screenshots, the markets view, and a phone-sized viewport.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import type { ChainViews } from '../../src/domain/order.js';
import { chromiumSkipReason, launchChromium, type Chromium } from '../support/chromium.js';
import { DEMO_SNAPSHOT, startDemoService, type DemoService } from '../support/demo-service.js';
import { eventually } from '../support/eventually.js';
import { buildOrder, uuidFor } from '../support/fixtures.js';

interface SnapshotOrder {
  readonly id: string;
  readonly market: string;
  readonly invoice: string;
  readonly state: string;
}

const { orders: demoOrders, chains } = JSON.parse(await readFile(DEMO_SNAPSHOT, 'utf8')) as {
  orders: SnapshotOrder[];
  chains: Required<ChainViews>;
};

function demoOrder(market: string, state: string): SnapshotOrder {
  const found = demoOrders.find((order) => order.market === market && order.state === state);
  assert.ok(found, `a demo ${market} order in ${state}`);
  return found;
}

// jsqr's types declare an ES default export, but the file is CommonJS whose module.exports is the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

const bitcoinToFund = demoOrder('BTC_LBTC', 'WaitingForFundingTx');
const ethereumToFund = demoOrder('ETH_LBTC', 'WaitingForFundingTx');
const refundable = demoOrder('BTC_LBTC', 'WaitingForRefundTx');
const sharedInvoice = demoOrders.find(
  (order) => demoOrders.filter((other) => other.invoice === order.invoice).length > 1,
);

describe('the order tracker page in Chromium', { skip: chromiumSkipReason() }, () => {
  let demo: DemoService;
  let browser: Chromium;
  let page: Page;
  let base: string;
  const foreignRequests: string[] = [];
  let sharedInvoiceHash = '';

  async function getJson<T>(path: string): Promise<T> {
    const response = await fetch(`${base}${path}`);
    assert.equal(response.status, 200, path);
    return (await response.json()) as T;
  }

  /** The QR code as a wallet's camera would read it: a screenshot of the element, decoded. */
  async function scanQr(): Promise<string> {
    const png = PNG.sync.read(await page.locator('.qr svg').screenshot());
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.ok(code, 'the QR code decodes');
    return code.data;
  }

  async function fieldValue(label: string): Promise<string> {
    return page.locator(`code[data-field="${label}"]`).innerText();
  }

  before(async () => {
    demo = await startDemoService({ chainViewPollIntervalMs: 100 });
    base = demo.service.url;
    browser = await launchChromium({ width: 1024, height: 900 }, 2);
    page = await browser.context.newPage();
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith(base.replace('http:', 'ws:'))) {
        foreignRequests.push(request.url());
      }
    });
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  test('an invoice pasted in the box shows its orders, newest first', async () => {
    assert.ok(sharedInvoice, 'the demo has an invoice quoted on two markets');
    await page.goto(`${base}/`);
    await page.getByLabel('Lightning invoice, its SHA-256 hash, or an order id').fill(sharedInvoice.invoice);
    await page.getByLabel('Lightning invoice, its SHA-256 hash, or an order id').press('Enter');
    await page.locator('article.order .timeline').nth(1).waitFor();
    const cards = await page.locator('article.order').all();
    const shown = await Promise.all(cards.map((card) => card.getAttribute('data-order-id')));
    sharedInvoiceHash = new URL(page.url()).searchParams.get('invoiceHash') ?? '';
    const listed = await getJson<{ id: string }[]>(`/api/orders?invoiceHash=${sharedInvoiceHash}`);
    assert.deepEqual(
      shown,
      listed.map((order) => order.id),
    );
    assert.equal(shown.length, 2);
    assert.equal(await page.getByRole('status').first().innerText(), '2 orders for this invoice, newest first.');
  });

  test('a Bitcoin order: its QR code is the BIP 21 link of its funding details, its moves appear without a reload', async () => {
    await page.goto(`${base}/orders/${bitcoinToFund.id}`);
    await page.locator('.qr svg').waitFor();
    const order = await getJson<{ amount: string }>(`/api/orders/${bitcoinToFund.id}`);
    const funding = await getJson<{ details: { payToAddress: string } }>(`/api/orders/${bitcoinToFund.id}/fundDetails`);
    const link = `bitcoin:${funding.details.payToAddress}?amount=${order.amount}`;
    assert.equal(await scanQr(), link);
    assert.equal(await fieldValue('Address'), funding.details.payToAddress);
    assert.equal(await fieldValue('Payment link'), link);
    assert.match(await page.locator('.countdown').innerText(), /left to fund$/);
    await page.evaluate('window.sameDocument = true');

    const fundingTxId = 'ab'.repeat(32);
    const moved = await demo.service.transitions.apply({
      orderId: bitcoinToFund.id,
      from: 'WaitingForFundingTx',
      to: 'WaitingForFundingTxConfirmation',
      at: Date.now(),
      cause: { source: 'chain', reason: 'fundingSeen', chain: 'bitcoin', txId: fundingTxId },
      transaction: { type: 'FUND', id: fundingTxId, amount: 50710n, outputIndex: 0 },
    });
    assert.equal(moved, true);
    await page.locator('.order-head .state', { hasText: 'WaitingForFundingTxConfirmation' }).waitFor();
    const newest = page.locator('.timeline li').last();
    await newest.getByText(`tx ${fundingTxId}`).waitFor();
    assert.match(await newest.innerText(), /WaitingForFundingTxConfirmation[\s\S]*\(chain fundingSeen\)/);
    assert.equal(
      await page.locator(`.transactions li[data-tx="${fundingTxId}"] .confirmations`).innerText(),
      'in the mempool, not yet in a block',
    );
    assert.equal(await page.locator('.funding').count(), 0, 'nothing left to fund');
    assert.equal(await page.evaluate("'sameDocument' in window"), true, 'the page was not reloaded');
  });

  test('a refundable order shows its refund details, and new blocks update its confirmations live', async () => {
    await page.goto(`${base}/orders/${refundable.id}`);
    await page.locator('.refund').waitFor();
    const refund = await getJson<{ details: { refundAddress: string; redeemScript: string } }>(
      `/api/orders/${refundable.id}/refund`,
    );
    assert.equal(await fieldValue('Refund address'), refund.details.refundAddress);
    assert.equal(await fieldValue('Redeem script'), refund.details.redeemScript);
    assert.equal(await page.locator('.blocks-remaining').innerText(), 'Refundable now (from block 612090).');
    const confirmations = page.locator('.transactions .confirmations').first();
    assert.equal(await confirmations.innerText(), 'in block 612001, 100 confirmations');
    await demo.fresh.store.setChainViews({ ...chains, bitcoin: { ...chains.bitcoin, blockHeight: 612_105 } });
    await eventually(async () => {
      assert.equal(await confirmations.innerText(), 'in block 612001, 105 confirmations');
    }, 'the new block height reaches the page');
  });

  test('an Ethereum order: its QR code is the EIP-681 call of the exact to, value and data shown', async () => {
    await page.goto(`${base}/orders/${ethereumToFund.id}`);
    await page.locator('.qr svg').waitFor();
    const { details } = await getJson<{ details: { unsignedFundingTx: { to: string; value: string; data: string } } }>(
      `/api/orders/${ethereumToFund.id}/fundDetails`,
    );
    const { to, value, data } = details.unsignedFundingTx;
    assert.equal(await fieldValue('To'), to);
    assert.equal(await fieldValue('Value (wei)'), value);
    assert.equal(await fieldValue('Data'), data);
    const orderUuid = data.slice(10, 42);
    const paymentHash = data.slice(74, 138);
    const claimer = data.slice(162);
    assert.equal(data, `0x478820ce${orderUuid}${'0'.repeat(32)}${paymentHash}${'0'.repeat(24)}${claimer}`);
    assert.equal(
      await scanQr(),
      `ethereum:${to}@1/fund?value=${value}&bytes16=0x${orderUuid}&bytes32=0x${paymentHash}&address=0x${claimer}`,
    );
  });

  test('a token order shows both steps, approve then fundToken, with its amount in tokens', async () => {
    const usdc = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 } as const;
    const { record } = buildOrder({ label: 'tracker usdc', market: 'ETH_LBTC', state: 'WaitingForFundingTx' });
    const order = { ...record, market: 'USDC_LBTC', amount: 1_234_560_000n, expiresAt: Date.now() + 3_600_000 };
    const configuration = await demo.fresh.store.getConfiguration();
    await demo.fresh.store.importAtomically(async (session) => {
      await session.writeConfiguration({
        ...configuration,
        tokens: [usdc],
        markets: [...configuration.markets, 'USDC_LBTC'],
      });
      await session.writeOrders([order]);
    });

    await page.goto(`${base}/orders/${order.id}`);
    await page.locator('li[data-step="fundToken"]').waitFor();
    const { details } = await getJson<{
      details: Record<'unsignedApprovalTx' | 'unsignedFundingTx', { to: string; value: string; data: string }>;
    }>(`/api/orders/${order.id}/fundDetails`);
    assert.deepEqual(
      await Promise.all(
        (await page.locator('.funding-steps > li').all()).map((item) => item.getAttribute('data-step')),
      ),
      ['approve', 'fundToken'],
    );
    for (const [step, tx, to] of [
      ['approve', details.unsignedApprovalTx, 'To (token)'],
      ['fundToken', details.unsignedFundingTx, 'To (swap contract)'],
    ] as const) {
      const field = (label: string) => page.locator(`li[data-step="${step}"] code[data-field="${label}"]`).innerText();
      assert.equal(await field(to), tx.to);
      assert.equal(await field('Value (wei)'), '0');
      assert.equal(await field('Data'), tx.data);
      assert.match(await page.locator(`li[data-step="${step}"] h4`).innerText(), /1234\.56 USDC$/);
    }
    assert.equal(details.unsignedApprovalTx.to, usdc.address);
    assert.equal(await page.locator('.qr').count(), 0, 'no payment link stands for two transactions');
  });

  test('an Ethereum order: a funder sees its own slot by its address, and it follows new blocks', async () => {
    const claimer = `0x${'c1'.repeat(20)}`;
    const [user, stranger] = [`0x${'a1'.repeat(20)}`, `0x${'ee'.repeat(20)}`];
    const head = chains.ethereum.blockHeight;
    const { record } = buildOrder({
      label: 'tracker slots',
      market: 'ETH_LBTC',
      state: 'WaitingForRefundTx',
      amount: 10n ** 18n,
      funds: [10n ** 18n],
      refundableAtBlockHeight: head - 5,
    });
    const order = { ...record, claimAddress: claimer };
    await demo.fresh.store.importAtomically(async (session) => session.writeOrders([order]));
    const block = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });
    const slot = (funder: string, height: number, amount: bigint, refundHeight: number) => ({
      kind: 'funding' as const,
      orderId: order.id,
      txId: `0x${funder.slice(2, 4).repeat(32)}`,
      position: 0,
      block: block(height),
      amount,
      refundHeight,
      funder,
      claimer,
      token: `0x${'0'.repeat(40)}`,
      paymentHash: order.paymentHash,
    });
    await demo.fresh.store.applyChainStep({
      chain: 'ethereum',
      startHeight: head - 100,
      observations: [slot(user, head - 50, 10n ** 18n, head - 5), slot(stranger, head - 10, 1n, head + 40)],
      cursor: block(head),
      orders: [],
    });

    await page.goto(`${base}/orders/${order.id}`);
    await page.locator('.refund').waitFor();
    assert.equal(await page.locator('.blocks-remaining').innerText(), `Refundable now (from block ${head - 5}).`);
    const address = page.getByLabel('Your funding address');
    await address.fill(stranger.toUpperCase().replace('0X', '0x'));
    await address.press('Enter');
    const when = page.locator('.slot-when');
    await when.waitFor();
    assert.equal(await when.innerText(), `Refundable in 40 blocks, at block ${head + 40}.`);
    assert.match(
      await page.locator('.slot').innerText(),
      /Refundable balance of your slot\s+0\.000000000000000001 ETH/,
    );
    assert.equal(
      await fieldValue('Refund call data, sent from your address'),
      (await getJson<{ details: { data: string } }>(`/api/orders/${order.id}/refund`)).details.data,
    );

    await demo.fresh.store.setChainViews({ ...chains, ethereum: { ...chains.ethereum, blockHeight: head + 1 } });
    await eventually(async () => {
      assert.equal(await when.innerText(), `Refundable in 39 blocks, at block ${head + 40}.`);
    }, 'the new block height reaches the slot');
    assert.equal(await address.inputValue(), stranger.toUpperCase().replace('0X', '0x'), 'what was typed is kept');

    await address.fill(user);
    await address.press('Enter');
    await page.locator('.slot-when', { hasText: `Refundable now (from block ${head - 5}).` }).waitFor();
    await address.fill(`0x${'99'.repeat(20)}`);
    await address.press('Enter');
    await page.locator('.slot-result', { hasText: 'No funding of this order from that address.' }).waitFor();
    await address.fill('0x1234');
    await address.press('Enter');
    await page.locator('.slot-result', { hasText: 'That is not an Ethereum address' }).waitFor();

    // The provider signed the stranger's slot away: "refund now", with the refundCooperative call any address sends.
    const signature = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b` as const;
    await demo.fresh.store.recordCooperativeRefunds(order.id, [{ funder: stranger, signature }]);
    await address.fill(stranger);
    await address.press('Enter');
    await page.locator('.slot-when', { hasText: /^Refund now: the provider gave this order up/ }).waitFor();
    const cooperative = await getJson<{ type: string; details: { data: string } }>(
      `/api/orders/${order.id}/refund?funder=${stranger}`,
    );
    assert.equal(cooperative.type, 'CooperativeRefund');
    assert.equal(
      await fieldValue('Refund call data (refundCooperative), sent from any address'),
      cooperative.details.data,
    );
    await demo.fresh.store.setChainViews(chains);
  });

  test('the markets view lists every market with its requirements', async () => {
    await page.goto(`${base}/markets`);
    await page.locator('li.market').first().waitFor();
    const markets = await getJson<{ market: string }[]>('/api/markets');
    const requirements =
      await getJson<{ market: string; payReq: { minBaseUnits: string } }[]>('/api/markets/requirements');
    assert.deepEqual(
      await page.locator('li.market h2').allInnerTexts(),
      markets.map((market) => market.market),
    );
    for (const { market, payReq } of requirements) {
      const grouped = payReq.minBaseUnits.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
      assert.match(await page.locator(`li.market[data-market="${market}"]`).innerText(), new RegExp(`${grouped} to `));
    }
  });

  test('on a 375 px wide phone every view fits without scrolling sideways', async () => {
    await page.setViewportSize({ width: 375, height: 667 });
    for (const [path, shown] of [
      [`/?invoiceHash=${sharedInvoiceHash}`, '.order .timeline'],
      [`/orders/${ethereumToFund.id}`, '.qr svg'],
      [`/orders/${bitcoinToFund.id}`, '.transactions'],
      [`/orders/${refundable.id}`, '.refund'],
      [`/orders/${uuidFor('tracker slots')}`, '.slot'],
      ['/markets', 'li.market'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.locator(shown).first().waitFor();
      const [scrollWidth, clientWidth] = (await page.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number];
      assert.ok(scrollWidth <= clientWidth, `${path}: ${scrollWidth} px of content in ${clientWidth} px`);
    }
    assert.deepEqual(foreignRequests, [], 'nothing requested from another host');
  });
});

/**
 * The pay page in a real Chromium against the live demo (Anvil, the swap contract, the demo token, two provider
 * daemons paying a simulated payee), with a browser wallet injected at `window.ethereum` that signs with an Anvil
 * account: swaps paid from the page to Complete, a failed payment refunded from the page, a wallet on another chain
 * asked to switch, and invoices the markets cannot take explained. Then the same browser against a lying service
 * (test/support/lying-service.ts) in front of the demo and of a service with a Bitcoin provider: quotes rewritten to
 * pay an attacker are refused in a sentence with nothing sent and no address shown, the Bitcoin rescue file is
 * offered before paying, and a quote past its window is not funded, on the page's own clock.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { decodeFunctionData, encodeFunctionData, type Address, type Hex } from 'viem';
import { claimPublicKeyOf } from '../../examples/maker-quote.js';
import { DEMO_CHAIN_ID, type DemoWallet } from '../../src/demo/ethereum/local-chain.js';
import { buildHtlcRedeemScript, htlcPayToAddresses, refundPublicKeyHashOfAddress } from '../../src/domain/bitcoin.js';
import { decodeFundingCalldata, encodeFundTokenCalldata, ERC20_APPROVE_ABI } from '../../src/domain/ethereum.js';
import type { FundingDetailsView } from '../../src/wire/response-shapes.js';
import { anvilSkipReason } from '../support/anvil.js';
import { p2wpkhAddress, walletKey } from '../support/bitcoin-wallet.js';
import { chromiumSkipReason, launchChromium, type Chromium } from '../support/chromium.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { BITCOIN_VIEW, hex32 } from '../support/fixtures.js';
import { hostileContract } from '../support/hostile-contracts.js';
import { injectSwitchableWallet, type InjectedWallet, type UseWallet } from '../support/injected-wallet.js';
import { makeInvoice } from '../support/invoices.js';
import { startLiveDemoService, type LiveDemoService } from '../support/live-demo-service.js';
import { LyingService, type QuoteLie } from '../support/lying-service.js';
import { addProvider, startTestService, type TestService } from '../support/ws/harness.js';

const SWAP_TIMEOUT_MS = 60_000;
type BitcoinQuote = FundingDetailsView & { details: { payToAddress: string; redeemScript: string } };
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
    // The page's clock: it runs as the real one until a test moves it past a quote's window.
    await page.clock.install();
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

    // The same invoice again: the service refuses (InvoiceAlreadyHadOrder: its order is no longer live), and the
    // page says so in a sentence.
    await readInvoice(page, invoice);
    await page.click('li.fit[data-market="SETH_LSBTC"] button');
    await page.locator('#quote-status', { hasText: /^This invoice already/ }).waitFor();
    assert.equal(
      await page.textContent('#quote-status'),
      'This invoice already had a swap, whose address may still be paid late; ask the payee for a new invoice.',
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
    const verified = injected.calls.findIndex(
      (call) =>
        call.method === 'eth_getCode' &&
        String(call.params[0]).toLowerCase() === demo.prepared.chain.contractAddress.toLowerCase(),
    );
    const firstSent = injected.calls.findIndex((call) => call.method === 'eth_sendTransaction');
    assert.ok(verified !== -1 && verified < firstSent, "the swap contract read through the wallet's node first");
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

  describe('a lying service between the page and the demo', () => {
    let lying: LyingService;
    let lookAlike: Address;
    const attackerAccount = '0x000000000000000000000000000000000000dead' as Address;
    const notSwapContract = 'This service asked you to pay an address that is not a swap contract; nothing was sent.';

    before(async () => {
      lying = new LyingService(new URL(demo.service.url));
      await lying.start();
      const { abi, bytecode } = hostileContract('LookAlikeSwapContract');
      const deployer = demo.prepared.chain.users.refunding;
      const hash = await deployer.deployContract({ abi, bytecode, args: [8n, attackerAccount] });
      const receipt = await demo.prepared.chain.publicClient.waitForTransactionReceipt({ hash });
      assert.ok(receipt.contractAddress);
      lookAlike = receipt.contractAddress;
      // One visit for the cases: each new invoice read starts the page's swap afresh.
      await page.goto(`${lying.url}/pay`);
    });

    after(async () => {
      await lying?.stop();
    });

    async function quoteThroughLiar(lie: QuoteLie | undefined): Promise<InjectedWallet> {
      lying.lie = lie;
      const injected = useWallet(demo.prepared.chain.users.ether, DEMO_CHAIN_ID);
      await readInvoice(page, demo.swaps.payee.createInvoice(26_000, true).invoice);
      await quote(page, 'SETH_LSBTC');
      return injected;
    }

    const payingTo =
      (to: Address): QuoteLie =>
      (quote) => {
        assert.ok('unsignedFundingTx' in quote.details);
        return {
          ...quote,
          details: { ...quote.details, unsignedFundingTx: { ...quote.details.unsignedFundingTx, to } },
        };
      };

    for (const [what, target] of [
      ['an account without code', () => attackerAccount],
      ["a look-alike contract with the swap contract's functions", () => lookAlike],
    ] as const) {
      test(`an ether quote pointed at ${what} is refused through the wallet's node, and nothing is sent`, async () => {
        const injected = await quoteThroughLiar(payingTo(target()));
        await page.click('#pay-with-wallet');
        await page.locator('#wallet-status', { hasText: notSwapContract }).waitFor();
        const methods = injected.calls.map((call) => call.method);
        assert.ok(!methods.includes('eth_sendTransaction'), methods.join(', '));
        assert.ok(
          injected.calls.some(
            (call) => call.method === 'eth_getCode' && String(call.params[0]).toLowerCase() === target().toLowerCase(),
          ),
          "the contract was read through the wallet's provider",
        );
        assert.deepEqual(injected.sent, []);
        assert.equal(await page.locator('.wallet-step').count(), 0);
        const shown = ((await page.textContent('main')) ?? '').toLowerCase();
        assert.ok(!shown.includes(target().toLowerCase().slice(2)), 'the address is not offered to pay otherwise');
        assert.equal(await page.locator('main figure.qr').count(), 0, 'no payment link to scan');
      });
    }

    test('a token quote whose approval lets the attacker spend is refused before the approval is sent', async () => {
      lying.lie = (quote) => {
        assert.ok('unsignedApprovalTx' in quote.details);
        const { args } = decodeFunctionData({
          abi: ERC20_APPROVE_ABI,
          data: quote.details.unsignedApprovalTx.data as Hex,
        });
        const data = encodeFunctionData({ abi: ERC20_APPROVE_ABI, args: [attackerAccount, args[1]] });
        return {
          ...quote,
          details: { ...quote.details, unsignedApprovalTx: { ...quote.details.unsignedApprovalTx, data } },
        };
      };
      const injected = useWallet(demo.prepared.chain.users.token, DEMO_CHAIN_ID);
      await readInvoice(page, demo.swaps.payee.createInvoice(27_000, true).invoice);
      await quote(page, 'SUSDC_LSBTC');
      await page.click('#pay-with-wallet');
      await page
        .locator('#wallet-status', {
          hasText:
            "This service's transactions would hand your coins to another address than the swap contract; nothing was sent.",
        })
        .waitFor();
      assert.ok(!injected.calls.some((call) => call.method === 'eth_sendTransaction'));
    });

    test('a token quote locking a thousand times the amount it shows is refused before the approval is sent', async () => {
      lying.lie = (quote) => {
        assert.ok('unsignedApprovalTx' in quote.details);
        const call = decodeFundingCalldata(quote.details.unsignedFundingTx.data);
        assert.ok(call?.functionName === 'fundToken');
        const more = call.amount * 1000n;
        const { orderId, paymentHash, claimer, token } = call;
        const fund = encodeFundTokenCalldata(orderId, paymentHash, claimer, token, more);
        const { args } = decodeFunctionData({
          abi: ERC20_APPROVE_ABI,
          data: quote.details.unsignedApprovalTx.data as Hex,
        });
        const approve = encodeFunctionData({ abi: ERC20_APPROVE_ABI, args: [args[0], more] });
        return {
          ...quote,
          details: {
            unsignedFundingTx: { ...quote.details.unsignedFundingTx, data: fund },
            unsignedApprovalTx: { ...quote.details.unsignedApprovalTx, data: approve },
          },
        };
      };
      const injected = useWallet(demo.prepared.chain.users.token, DEMO_CHAIN_ID);
      await readInvoice(page, demo.swaps.payee.createInvoice(27_000, true).invoice);
      await quote(page, 'SUSDC_LSBTC');
      await page.click('#pay-with-wallet');
      await page
        .locator('#wallet-status', {
          hasText: "This service's funding details do not match its own quote; nothing was sent.",
        })
        .waitFor();
      assert.ok(!injected.calls.some((call) => call.method === 'eth_sendTransaction'));
    });

    test('an honest ether quote past its window, by the page clock, is not funded', async () => {
      const injected = await quoteThroughLiar(undefined);
      const [honest] = lying.honestQuotes.slice(-1);
      assert.ok(honest !== undefined);
      try {
        await page.clock.setSystemTime(honest.expiryTimestampMs + 1_000);
        await page.click('#pay-with-wallet');
        await page
          .locator('#wallet-status', {
            hasText: 'The time to fund this quote has passed, so ask for a new quote; nothing was sent.',
          })
          .waitFor();
      } finally {
        await page.clock.setSystemTime(Date.now());
      }
      assert.ok(
        injected.calls.some((call) => call.method === 'eth_getCode'),
        'the contract was verified first',
      );
      assert.ok(!injected.calls.some((call) => call.method === 'eth_sendTransaction'));
    });
  });

  describe('a lying service in front of a service with a Bitcoin provider', () => {
    let bitcoinService: TestService;
    let bot: RunningBot;
    let lying: LyingService;
    const refundAddress = p2wpkhAddress(walletKey(hex32('pay page refund key')), 'mainnet');
    const attackerAddress = p2wpkhAddress(walletKey(hex32('pay page attacker key')), 'mainnet');
    const quotedHeight = BITCOIN_VIEW.blockHeight + 144;

    before(async () => {
      bitcoinService = await startTestService('sqlite');
      const keys = await addProvider(bitcoinService.fresh.store, 'bitcoin-maker');
      bot = await runBot(bitcoinService.service.url, keys, makerTerms('bitcoin-maker', 100n, 600_000));
      lying = new LyingService(new URL(bitcoinService.service.url));
      await lying.start();
      await page.goto(`${lying.url}/pay`);
    });

    after(async () => {
      bot?.bot.close();
      await lying?.stop();
      await bitcoinService?.close();
    });

    /**
     * A fresh mainnet invoice quoted on BTC_LBTC through the lying service, its quote rewritten by the lie made
     * for the invoice's payment hash; answers the quote the real service made.
     */
    async function bitcoinQuote(lieFor: (paymentHash: string) => QuoteLie | undefined): Promise<BitcoinQuote> {
      const { invoice, paymentHash } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 40_000n,
        expirySeconds: 7200,
      });
      lying.lie = lieFor(paymentHash);
      await readInvoice(page, invoice);
      await page.fill('li.fit[data-market="BTC_LBTC"] input[name="refundAddress"]', refundAddress);
      await quote(page, 'BTC_LBTC');
      await page.waitForSelector('#bitcoin:not([hidden])');
      const honest = lying.honestQuotes.at(-1);
      assert.ok(honest !== undefined && 'payToAddress' in honest.details);
      return honest as BitcoinQuote;
    }

    /**
     * The page says `sentence` and shows nothing to pay, anywhere on it (the order card included): neither the
     * address the real service quoted nor the one the page was told, and no QR code; the rescue file only when an
     * address was shown before.
     */
    async function refused(sentence: string, rescueFiles: number): Promise<void> {
      await page.locator('#bitcoin-status', { hasText: sentence }).waitFor();
      const shown = (await page.textContent('main')) ?? '';
      for (const quoted of [lying.honestQuotes.at(-1), lying.toldQuotes.at(-1)]) {
        const address = (quoted?.details as { payToAddress?: string } | undefined)?.payToAddress;
        assert.ok(address !== undefined && !shown.includes(address), `${address ?? 'no address'} not shown`);
      }
      assert.equal(await page.locator('main img, main figure.qr').count(), 0, 'no QR code shown');
      assert.equal(await page.locator('#rescue a').count(), rescueFiles);
    }

    /** The attacker's own HTLC for the invoice: its claim key, refunding `refundTo` at `height`. */
    const attackerHtlc = (paymentHash: string, refundTo: string, height: number): QuoteLie => {
      const redeemScript = buildHtlcRedeemScript({
        paymentHash,
        claimPublicKey: claimPublicKeyOf(hex32('pay page attacker claim key')),
        refundPublicKeyHash: refundPublicKeyHashOfAddress(refundTo, 'mainnet')!,
        refundableAtBlockHeight: height,
      });
      const payToAddress = htlcPayToAddresses(redeemScript, 'mainnet').p2wsh;
      return (quote) => ({ ...quote, details: { redeemScript, payToAddress, refundableAtBlockHeight: height } });
    };

    test('an honest Bitcoin quote shows its address and QR code with the rescue file, and withdraws the address when the window passes', async () => {
      const honest = await bitcoinQuote(() => undefined);
      await page.waitForSelector('#bitcoin-qr img');
      const uri = await page.getAttribute('#bitcoin-qr img', 'data-uri');
      assert.equal(uri, `bitcoin:${honest.details.payToAddress}?amount=0.000401`);
      assert.match((await page.textContent('#rescue')) ?? '', /service is gone/);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 390, 'nothing wider than the phone');

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#rescue a')]);
      assert.equal(download.suggestedFilename(), `rescue-${honest.orderId}.json`);
      const rescue = JSON.parse(await readFile(await download.path(), 'utf8')) as Record<string, unknown>;
      assert.equal(rescue.orderId, honest.orderId);
      assert.equal(rescue.network, 'mainnet');
      assert.equal(rescue.address, honest.details.payToAddress);
      assert.equal(rescue.redeemScript, honest.details.redeemScript);
      assert.equal(rescue.refundAddress, refundAddress);
      assert.equal(rescue.refundableAtBlockHeight, quotedHeight);
      assert.doesNotMatch(JSON.stringify(rescue), /preimage|privateKey|secret/i, 'no secret in the file');

      try {
        await page.clock.setSystemTime(honest.expiryTimestampMs + 1_000);
        await refused('The time to fund this quote has passed, so ask for a new quote; no address to pay is shown.', 1);
      } finally {
        await page.clock.setSystemTime(Date.now());
      }
    });

    const lies: [string, string, (paymentHash: string) => QuoteLie][] = [
      [
        "the attacker's HTLC, refunding the attacker",
        'This swap would refund another address than the one you gave; no address to pay is shown.',
        (paymentHash) => attackerHtlc(paymentHash, attackerAddress, quotedHeight),
      ],
      [
        "the attacker's address beside the honest script",
        "This service asked you to pay a Bitcoin address that is not the swap's own; no address to pay is shown.",
        () => (quote) => ({ ...quote, details: { ...quote.details, payToAddress: attackerAddress } }),
      ],
      [
        'an HTLC refunding the user in a year',
        'This swap would keep your coins for more than two weeks if the payment failed; no address to pay is shown.',
        (paymentHash) => attackerHtlc(paymentHash, refundAddress, BITCOIN_VIEW.blockHeight + 52_560),
      ],
    ];
    for (const [what, sentence, lieFor] of lies) {
      test(`a Bitcoin quote rewritten to ${what} shows a sentence, and no address or QR code`, async () => {
        await bitcoinQuote(lieFor);
        await refused(sentence, 0);
      });
    }
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

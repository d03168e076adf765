import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildMakerQuote, type MakerQuote, type QuoteRequestEvent } from '../../examples/maker-quote.js';
import type { Ack } from '../../examples/provider-bot.js';
import { followOrder, requestQuote, type Quote, type StateChanged } from '../../examples/user-client.js';
import { parseHtlcRedeemScript } from '../../src/domain/bitcoin.js';
import { encodeFundCalldata } from '../../src/domain/ethereum.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import { configuration, hex32, SWAP_CONTRACT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import {
  addProvider,
  eventually,
  recordingLogger,
  refusalOf,
  startTestService,
  succeed,
  type ProviderKeys,
  type TestService,
} from '../support/ws/harness.js';
import { BOT_PAY_REQ, makerTerms, runBot, WEI_PER_SATOSHI, type RunningBot } from '../support/e2e/bots.js';
import { skipReason, STORE_KINDS } from '../support/stores.js';
import { MOVE_CAUSE } from '../support/causes.js';

const QUOTE_DEADLINE_MS = 500;
const SHORT_FUND_WINDOW_MS = 2_500;
const LONG_FUND_WINDOW_MS = 60_000;
const refundAddress = refundAddressFor('user');
/** Where the operator has each maker paid on Ethereum. */
const CHEAP_PAYOUT = '0x00000000000000000000000000000000000c4ea9';
const DEAR_PAYOUT = '0x00000000000000000000000000000000000d4ea7';

async function getJson(baseUrl: string, path: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

for (const kind of STORE_KINDS) {
  describe(`swap flow end to end on ${kind}`, { skip: skipReason(kind) }, () => {
    let harness: TestService;
    let cheapKeys: ProviderKeys;
    let dearKeys: ProviderKeys;
    const bots: RunningBot[] = [];
    const log = recordingLogger();

    /** The one socket request logged with this id, which must have succeeded. */
    function succeededRequest(requestId: string | undefined): string {
      const lines = log.lines.filter((line) => line.requestId === requestId && line.msg === 'socket request completed');
      assert.equal(lines.length, 1, `one logged request ${requestId}`);
      assert.equal(lines[0]?.success, true);
      return lines[0]?.event as string;
    }

    before(async () => {
      harness = await startTestService(kind, {
        logger: log.logger,
        configuration: configuration({ providers: [] }),
        engine: { quoteDeadlineMs: QUOTE_DEADLINE_MS, minFundWindowMs: 300, sweepIntervalMs: 50 },
      });
      cheapKeys = await addProvider(harness.fresh.store, 'maker-cheap', CHEAP_PAYOUT);
      dearKeys = await addProvider(harness.fresh.store, 'maker-dear', DEAR_PAYOUT);
    });
    // Each test starts its own bots; they leave before the next test starts.
    afterEach(async () => {
      for (const { bot } of bots.splice(0)) bot.close();
      await eventually(async () => {
        const { providers } = await harness.fresh.store.getConfiguration();
        return providers.every((provider) => !provider.active);
      }, 'the bots to be inactive');
    });
    after(() => harness?.close());

    async function startBots(fundWindowMs: number): Promise<{ cheap: RunningBot; dear: RunningBot }> {
      const cheap = await runBot(
        harness.service.url,
        cheapKeys,
        makerTerms('cheap', 100n, fundWindowMs, CHEAP_PAYOUT),
        'v2',
      );
      bots.push(cheap);
      const dear = await runBot(
        harness.service.url,
        dearKeys,
        makerTerms('dear', 900n, fundWindowMs, DEAR_PAYOUT),
        'v4',
      );
      bots.push(dear);
      return { cheap, dear };
    }

    test('a Bitcoin quote goes to the cheapest maker; unfunded, the order elapses; HTTP shows it exactly', async () => {
      const user = await harness.connect('/user/v1', 'v4');
      const { invoice, paymentHash } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 50_000n,
        expirySeconds: 7200,
      });
      assert.equal(
        await refusalOf(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress }),
        'NoQuoteProvidersAvailable',
      );

      const running = await startBots(SHORT_FUND_WINDOW_MS);
      assert.deepEqual(await succeed(user, 'requestMarketRequirements', null), [
        { market: 'BTC_LBTC', payReq: BOT_PAY_REQ },
        { market: 'ETH_LBTC', payReq: BOT_PAY_REQ },
      ]);

      const requestedAt = Date.now();
      const quote = await requestQuote(user, { market: 'btc_lbtc', invoice, refundAddress });
      const answeredAt = Date.now();

      // Both bots were asked the same thing, and the cheap bot's quote came back unchanged.
      const [asked] = running.cheap.requests;
      assert.ok(asked);
      assert.deepEqual(running.dear.requests, [asked]);
      assert.deepEqual(asked, {
        orderId: quote.orderId,
        market: 'BTC_LBTC',
        invoice,
        refundAddress,
        requestExpiryTimestampMs: asked.requestExpiryTimestampMs,
      });
      assert.ok(answeredAt >= asked.requestExpiryTimestampMs);
      const cheapQuote = buildMakerQuote(asked, running.cheap.terms);
      assert.deepEqual(quote, {
        orderId: cheapQuote.orderId,
        expiryTimestampMs: cheapQuote.quoteExpiryTimestampMs,
        amount: '0.00050100',
        details: cheapQuote.details,
      });
      assert.deepEqual(running.cheap.judgements, [{ orderId: quote.orderId, ack: { success: true } }]);
      assert.deepEqual(running.dear.judgements, [{ orderId: quote.orderId, ack: { success: true } }]);
      const terms = parseHtlcRedeemScript((quote.details as { redeemScript: string }).redeemScript);
      assert.equal(terms?.paymentHash, paymentHash);
      assert.equal(terms?.claimPublicKey, running.cheap.claimPublicKey);

      // The quote is the order's funding details, and the read API shows the order exactly.
      const base = harness.service.url;
      assert.deepEqual(await getJson(base, `/api/orders/${quote.orderId}/fundDetails`), quote);
      const stored = await harness.fresh.store.getOrder(quote.orderId);
      assert.ok(stored && stored.createdAt >= requestedAt && stored.createdAt <= answeredAt);
      const summary = {
        id: quote.orderId,
        market: 'BTC_LBTC',
        onchainTicker: 'BTC',
        createdAt: new Date(stored.createdAt).toISOString(),
        state: 'WaitingForFundingTx',
        payToAddress: (quote.details as { payToAddress: string }).payToAddress,
        amount: '0.000501',
        amountPaid: '0',
        expiryTimestamp: new Date(quote.expiryTimestampMs).toISOString(),
      };
      assert.deepEqual(await getJson(base, `/api/orders/${quote.orderId}`), { ...summary, invoice, paymentHash });
      assert.deepEqual(await getJson(base, `/api/orders?invoiceHash=${hashInvoice(invoice)}`), [summary]);
      assert.deepEqual(await getJson(base, `/api/orders/${quote.orderId}/transactions`), []);

      assert.equal(
        await refusalOf(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress }),
        'SwapAlreadyInProgress',
      );

      const changes: StateChanged[] = [];
      const settled = await (await followOrder(user, quote.orderId, (change) => changes.push(change))).settled;
      assert.deepEqual(settled, { orderId: quote.orderId, state: 'FundWindowElapsed', sequence: 2 });
      assert.deepEqual(changes, [settled]);
      assert.equal(await getJson(base, `/api/orders/${quote.orderId}/state`), 'FundWindowElapsed');
      assert.deepEqual(await getJson(base, `/api/orders?invoiceHash=${hashInvoice(invoice)}`), [
        { ...summary, state: 'FundWindowElapsed' },
      ]);

      // The order's history says why it moved: the user's request, then the sweeper.
      const history = await harness.fresh.store.getOrderHistory(quote.orderId);
      const requestId = history[0]?.cause?.requestId;
      assert.deepEqual(history, [
        {
          state: 'WaitingForFundingTx',
          at: stored.createdAt,
          cause: { source: 'request', reason: 'requestQuote', requestId },
        },
        { state: 'FundWindowElapsed', at: history[1]?.at, cause: { source: 'timer', reason: 'fundWindowElapsed' } },
      ]);
      assert.equal(succeededRequest(requestId), 'requestQuote');

      // The elapsed order's address can still be paid: the invoice gets no second order.
      assert.equal(
        await refusalOf(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress }),
        'InvoiceAlreadyHadOrder',
      );
    });

    test('an Ethereum order funded on chain completes through paymentResult; a wrong preimage is refused', async () => {
      const running = await startBots(LONG_FUND_WINDOW_MS);
      const user = await harness.connect('/user/v1', 'v2');
      const { invoice, paymentHash, preimage } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 20_000n,
        expirySeconds: 7200,
      });

      const quote = (await succeed(user, 'requestQuote', { market: 'ETH_LBTC', invoice })) as Quote;
      const expectedWei = (20_000n + 100n) * WEI_PER_SATOSHI;
      const [asked] = running.cheap.requests;
      assert.ok(asked);
      assert.deepEqual(quote.details, buildMakerQuote(asked, running.cheap.terms).details);
      assert.deepEqual(quote.details, {
        unsignedFundingTx: {
          to: SWAP_CONTRACT_ADDRESS,
          data: encodeFundCalldata(quote.orderId, paymentHash, CHEAP_PAYOUT),
          value: expectedWei.toString(),
        },
      });
      assert.equal(quote.amount, '0.006030000000000000');
      const stored = await harness.fresh.store.getOrder(quote.orderId);
      assert.equal(stored?.providerId, 'maker-cheap');
      assert.equal(stored?.claimAddress, CHEAP_PAYOUT);
      assert.deepEqual(await getJson(harness.service.url, `/api/orders/${quote.orderId}/fundDetails`), quote);

      const changes: StateChanged[] = [];
      const { settled } = await followOrder(user, quote.orderId, (change) => changes.push(change));

      assert.equal(
        (await running.cheap.bot.reportPayment(quote.orderId, preimage)).message,
        'OrderNotFunded',
        'nobody pays before the funds are confirmed',
      );

      // What a chain watcher does once the funding transaction is seen, and once it is confirmed.
      const fundTransaction = { type: 'FUND' as const, id: `0x${hex32('eth fund')}`, amount: expectedWei };
      await harness.service.transitions.apply({
        orderId: quote.orderId,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: Date.now(),
        transaction: fundTransaction,
        cause: MOVE_CAUSE,
      });
      await harness.service.transitions.apply({
        orderId: quote.orderId,
        from: 'WaitingForFundingTxConfirmation',
        to: 'Funded',
        at: Date.now(),
        cause: MOVE_CAUSE,
      });

      assert.deepEqual(await running.cheap.bot.reportPayment(quote.orderId, hex32('not the preimage')), {
        success: false,
        message: 'InvalidPreimage',
      });
      // The maker that lost the auction cannot report on the order, least of all hold it for an admin refund.
      for (const reason of ['PaymentFailed', 'AddressBlacklisted']) {
        assert.deepEqual(await running.dear.bot.reportFailedPayment(quote.orderId, reason), {
          success: false,
          message: 'OrderNotWonByProvider',
        });
      }
      assert.deepEqual(await running.cheap.bot.reportFailedPayment(quote.orderId, 'no route'), {
        success: false,
        message: 'InvalidFailedReason',
      });
      assert.deepEqual(await running.cheap.bot.reportFailedPayment(quote.orderId, 'PaymentFailed'), { success: true });
      assert.deepEqual(await running.cheap.bot.reportPayment(quote.orderId, preimage), { success: true });

      assert.deepEqual(await settled, { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage });
      assert.deepEqual(changes, [
        {
          orderId: quote.orderId,
          state: 'WaitingForFundingTxConfirmation',
          sequence: 2,
          transactionId: fundTransaction.id,
        },
        { orderId: quote.orderId, state: 'Funded', sequence: 3, transactionId: fundTransaction.id },
        { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage },
      ]);
      const order = await getJson(harness.service.url, `/api/orders/${quote.orderId}`);
      assert.deepEqual(order, {
        id: quote.orderId,
        market: 'ETH_LBTC',
        onchainTicker: 'ETH',
        createdAt: (order as { createdAt: string }).createdAt,
        state: 'Complete',
        payToAddress: SWAP_CONTRACT_ADDRESS,
        amount: '0.00603',
        amountPaid: '0.00603',
        expiryTimestamp: new Date(quote.expiryTimestampMs).toISOString(),
        invoice,
        paymentHash,
        paymentPreimage: preimage,
      });
      assert.deepEqual(await getJson(harness.service.url, `/api/orders/${quote.orderId}/transactions`), [
        { type: 'FUND', id: fundTransaction.id },
      ]);

      const history = await harness.fresh.store.getOrderHistory(quote.orderId);
      const [quoteRequestId, paymentRequestId] = [history[0], history[3]].map((change) => change?.cause?.requestId);
      assert.deepEqual(
        history.map((change) => [change.state, change.cause]),
        [
          ['WaitingForFundingTx', { source: 'request', reason: 'requestQuote', requestId: quoteRequestId }],
          ['WaitingForFundingTxConfirmation', MOVE_CAUSE],
          ['Funded', MOVE_CAUSE],
          ['Complete', { source: 'request', reason: 'paymentResult', requestId: paymentRequestId }],
        ],
      );
      assert.equal(succeededRequest(quoteRequestId), 'requestQuote');
      assert.equal(succeededRequest(paymentRequestId), 'paymentResult');
    });
  });
}

describe('every refusal over the wire', () => {
  let harness: TestService;
  let makerKeys: ProviderKeys;

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({ markets: ['BTC_LBTC', 'ETH_LBTC', 'TBTC_LTBTC'], providers: [] }),
      engine: { quoteDeadlineMs: QUOTE_DEADLINE_MS, minFundWindowMs: 300 },
      sockets: {
        quoteRequestsPerConnection: { burst: 100, perSecond: 1 },
        quoteRequestsPerAddress: { burst: 100, perSecond: 1 },
      },
    });
    makerKeys = await addProvider(harness.fresh.store, 'maker');
  });
  after(() => harness?.close());

  test('quote request refusals', async () => {
    const user = await harness.connect('/user/v1', 'v2');
    const invoice = (satoshis: bigint, expirySeconds = 7200, network: 'mainnet' | 'testnet' = 'mainnet') =>
      makeInvoice({ network, amountSatoshis: satoshis, expirySeconds }).invoice;
    const btc = (fields: Record<string, unknown>) => ({
      market: 'BTC_LBTC',
      invoice: invoice(5000n),
      refundAddress,
      ...fields,
    });

    assert.equal(await refusalOf(user, 'requestQuote', btc({})), 'NoQuoteProvidersAvailable');
    const silent = await harness.connect('/provider/v1');
    await succeed(silent, 'authenticate', makerKeys);
    await succeed(silent, 'activeConfiguration', {
      BTC_LBTC: { payReq: BOT_PAY_REQ },
      ETH_LBTC: { payReq: BOT_PAY_REQ },
    });
    await succeed(silent, 'subscribeToQuotes', ['BTC_LBTC']);

    const expectations: [unknown, string][] = [
      [{ market: 'BTC_LBTC' }, 'InvalidOrMissingQuoteRequestFields'],
      [btc({ market: 'XYZ_LBTC' }), 'InvalidMarket'],
      [btc({ invoice: 'lnbc1notaninvoice' }), 'InvalidInvoice'],
      [btc({ invoice: invoice(5000n, 7200, 'testnet') }), 'InvalidMarketForInvoice'],
      [btc({ refundAddress: 'bc1qnotanaddress' }), 'InvalidRefundAddress'],
      [btc({ invoice: invoice(5000n, 60) }), 'InvoiceExpiresTooSoon'],
      [btc({ invoice: invoice(999n) }), 'InvoiceAmountBelowMinimum'],
      [btc({ invoice: invoice(1_000_001n) }), 'InvoiceAmountAboveMaximum'],
      [
        btc({
          market: 'TBTC_LTBTC',
          invoice: invoice(5000n, 7200, 'testnet'),
          refundAddress: refundAddressFor('user', 'testnet'),
        }),
        'NoQuoteProvidersForTheRequestedMarket',
      ],
      // Configured and subscribed, but it never answers.
      [btc({}), 'NoQuotesAvailable'],
    ];
    for (const [payload, token] of expectations)
      assert.equal(await refusalOf(user, 'requestQuote', payload), token, token);
  });

  test('TooManySwapsInFlight at the operator limit', async () => {
    const limited = await startTestService('sqlite', { engine: { maxSwapsInFlight: 0 } });
    try {
      const keys = await addProvider(limited.fresh.store, 'maker');
      const running = await runBot(limited.service.url, keys, makerTerms('maker', 0n, LONG_FUND_WINDOW_MS));
      const user = await limited.connect('/user/v1');
      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 5000n, expirySeconds: 7200 });
      assert.equal(await refusalOf(user, 'requestQuote', { market: 'ETH_LBTC', invoice }), 'TooManySwapsInFlight');
      assert.deepEqual(running.requests, [], 'no provider was asked');
      running.bot.close();
    } finally {
      await limited.close();
    }
  });

  test('maker quote refusals, each acknowledged to the provider; only the valid quote wins', async () => {
    const cheater = await harness.connect('/provider/v1');
    await succeed(cheater, 'authenticate', makerKeys);
    await succeed(cheater, 'activeConfiguration', {
      BTC_LBTC: { payReq: BOT_PAY_REQ },
      ETH_LBTC: { payReq: BOT_PAY_REQ },
    });
    await succeed(cheater, 'subscribeToQuotes', ['BTC_LBTC', 'ETH_LBTC']);
    const terms = makerTerms('cheater', 0n, LONG_FUND_WINDOW_MS);
    const judged: { token: unknown; expected: string }[] = [];
    const sent: Promise<void>[] = [];

    const send = (quote: unknown, expected: string, delayMs = 0) => {
      const judgement = sleep(delayMs)
        .then(() => new Promise<Ack>((resolve) => cheater.emit('makerQuote', quote, resolve)))
        .then((ack) => void judged.push({ token: ack.success ? 'accepted' : ack.message, expected }));
      sent.push(judgement);
    };

    cheater.on('requestQuote', (request: never) => {
      const asked = request as QuoteRequestEvent;
      const valid = buildMakerQuote(asked, terms);
      // Cheaper than the valid quote, so only verification keeps these from winning.
      const cheap = (overrides: Partial<MakerQuote>) => ({
        ...valid,
        ...(asked.market === 'BTC_LBTC' ? { amount: '0.00000001' } : {}),
        ...overrides,
      });
      const withDetails = (details: object) =>
        cheap({ details: { ...valid.details, ...details } as MakerQuote['details'] });
      const withTransaction = (fields: object) => {
        const { unsignedFundingTx } = valid.details as { unsignedFundingTx: object };
        return withDetails({ unsignedFundingTx: { ...unsignedFundingTx, ...fields } });
      };

      if (asked.market === 'BTC_LBTC') {
        const mallorys = buildMakerQuote({ ...asked, refundAddress: refundAddressFor('mallory') }, terms);
        const longLock = buildMakerQuote(asked, { ...terms, timelockBlocks: 10_000 });
        send({ ...cheap({}), quoteExpiryTimestampMs: 'soon' }, 'InvalidOrMissingQuoteFields');
        send(cheap({ details: mallorys.details }), 'InvalidRedeemScript');
        send(withDetails({ payToAddress: refundAddress }), 'InvalidPayToAddress');
        send(cheap({ details: longLock.details }), 'TimelockIsOutOfBounds');
        send(cheap({ quoteExpiryTimestampMs: asked.requestExpiryTimestampMs + 100 }), 'QuoteExpiryIsOutOfBounds');
        send(valid, 'accepted');
        send(cheap({}), 'QuoteSubmittedTooLate', asked.requestExpiryTimestampMs - Date.now() + 50);
      } else {
        send(withTransaction({ to: '0x000000000000000000000000000000000000dead' }), 'ContractIsNotWhitelisted');
        send(withTransaction({ data: '0x3fdcdd1e' }), 'InvalidContractData');
        send(withTransaction({ value: '1' }), 'InvalidFundTxValue');
        const redirected = buildMakerQuote(asked, {
          ...terms,
          ethereumPayoutAddress: '0x000000000000000000000000000000000000beef',
        });
        send(cheap({ details: redirected.details }), 'ClaimerIsNotPayoutAddress');
        send(valid, 'accepted');
      }
    });

    const user = await harness.connect('/user/v1');
    const invoiceOf = () => makeInvoice({ network: 'mainnet', amountSatoshis: 5000n, expirySeconds: 7200 }).invoice;
    const btcQuote = (await succeed(user, 'requestQuote', {
      market: 'BTC_LBTC',
      invoice: invoiceOf(),
      refundAddress,
    })) as Quote;
    assert.equal(btcQuote.amount, '0.00005000', 'the valid quote won, not the cheaper invalid ones');
    const ethQuote = (await succeed(user, 'requestQuote', { market: 'ETH_LBTC', invoice: invoiceOf() })) as Quote;
    assert.equal(ethQuote.amount, '0.001500000000000000');
    await Promise.all(sent);

    assert.equal(judged.length, 12);
    for (const { token, expected } of judged) assert.equal(token, expected);
  });
});

/**
 * A wallet built on REDSHIFT's client libraries works against lnswap without a change: the
 * protocol as those libraries send it (see redshift-client.ts), end to end, on both stores.
 */
import { MOVE_CAUSE } from '../support/causes.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildOrder, CHAINS, configuration, ETHEREUM_VIEW, BITCOIN_VIEW, hex32 } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { skipReason, STORE_KINDS } from '../support/stores.js';
import { addProvider, eventually, startTestService, type TestService } from '../support/ws/harness.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { Network, RedshiftHttpClient, RedshiftWebSocketClient, Subnet } from '../support/e2e/redshift-client.js';

const WAIT_MS = 5_000;

/** The library has no timeout; the test must not hang when an ack never comes. */
async function settles<T>(promise: Promise<T>, what: string): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the promise never settled`)), WAIT_MS);
  });
  try {
    return (await Promise.race([Promise.allSettled([promise]), timeout]))[0] as PromiseSettledResult<T>;
  } finally {
    clearTimeout(timer);
  }
}

async function rejection(promise: Promise<unknown>, what: string): Promise<string> {
  const settled = await settles(promise, what);
  assert.equal(settled.status, 'rejected', `${what} succeeded`);
  return ((settled as PromiseRejectedResult).reason as Error).message;
}

/** REDSHIFT's wallets write ids without dashes and in upper case. */
function walletStyleId(orderId: string): string {
  return orderId.replaceAll('-', '').toUpperCase();
}

for (const kind of STORE_KINDS) {
  describe(`REDSHIFT client compatibility on ${kind}`, { skip: skipReason(kind) }, () => {
    let harness: TestService;
    let http: RedshiftHttpClient;
    const wallets: RedshiftWebSocketClient[] = [];
    let bot: RunningBot | undefined;
    const ethereumOrder = buildOrder({ label: 'redshift eth', market: 'ETH_LBTC', createdAt: Date.now() });
    const refundable = buildOrder({
      label: 'redshift refund',
      market: 'ETH_LBTC',
      state: 'WaitingForRefundTx',
      funds: [499_500_000_000_000_000n],
    });

    before(async () => {
      harness = await startTestService(kind, {
        configuration: configuration({ markets: ['BTC_LBTC', 'ETH_LBTC', 'KETH_LTBTC', 'SETH_LSBTC'], providers: [] }),
        orders: [ethereumOrder.record, refundable.record],
      });
      http = new RedshiftHttpClient(harness.service.url);
    });
    after(async () => {
      bot?.bot.close();
      for (const wallet of wallets) wallet.disconnect();
      await harness?.close();
    });

    async function wallet(): Promise<RedshiftWebSocketClient> {
      const client = new RedshiftWebSocketClient(harness.service.url);
      wallets.push(client);
      assert.equal(await client.connect(), 'SocketConnected');
      return client;
    }

    test("HTTP: every call in the client's URL forms (lower-case ticker, dashless upper-case ids)", async () => {
      const markets = (await http.getMarkets()) as { market: string; onchainTicker: string; offchainTicker: string }[];
      assert.deepEqual(
        markets.map((market) => market.market),
        ['BTC_LBTC', 'ETH_LBTC', 'KETH_LTBTC', 'SETH_LSBTC'],
      );
      assert.deepEqual(await http.getMarketRequirements(), []);

      const id = walletStyleId(ethereumOrder.record.id);
      const orders = (await http.getOrders(ethereumOrder.record.invoice, 'eth')) as {
        id: string;
        onchainTicker: string;
        state: string;
      }[];
      assert.deepEqual(
        orders.map(({ id: orderId, onchainTicker, state }) => ({ orderId, onchainTicker, state })),
        [{ orderId: ethereumOrder.record.id, onchainTicker: 'ETH', state: 'WaitingForFundingTx' }],
      );
      assert.deepEqual(await http.getOrders(ethereumOrder.record.invoice, 'btc'), []);
      assert.equal(((await http.getOrders(ethereumOrder.record.invoice)) as unknown[]).length, 1);

      const details = (await http.getOrder(id)) as Record<string, unknown>;
      for (const field of [
        'market',
        'onchainTicker',
        'createdAt',
        'state',
        'payToAddress',
        'amount',
        'amountPaid',
        'invoice',
        'paymentHash',
      ]) {
        assert.ok(field in details, `order details lack ${field}`);
      }
      assert.equal(details.invoice, ethereumOrder.record.invoice);
      assert.equal(await http.getOrderState(id), 'WaitingForFundingTx');
      const fund = (await http.getOrderFundDetails(id)) as {
        orderId: string;
        details: { unsignedFundingTx: { to: string } };
      };
      assert.equal(fund.orderId, ethereumOrder.record.id);
      assert.equal(fund.details.unsignedFundingTx.to, ETHEREUM_VIEW.swapContractAddress);
      assert.deepEqual(await http.getOrderTransactions(walletStyleId(refundable.record.id)), [
        { type: 'FUND', id: refundable.record.transactions[0]?.id },
      ]);
      const refund = (await http.getOrderRefundDetails(walletStyleId(refundable.record.id))) as Record<string, unknown>;
      assert.equal(refund.type, 'TimelockRefund');
      assert.equal(refund.refundableBalance, '0.4995');
    });

    test('user socket: requirements, order subscriptions and refund details by wallet-style ids; broadcastTransaction settles', async () => {
      const client = await wallet();
      assert.deepEqual(await client.requestMarketRequirements(), []);
      const id = walletStyleId(refundable.record.id);
      assert.equal(await client.subscribeToOrderState(id), undefined);
      assert.equal(await client.unsubscribeFromOrderState(id), undefined);
      assert.deepEqual(await client.requestRefundDetails(id), await http.getOrderRefundDetails(id));
      assert.equal(
        await rejection(client.requestRefundDetails('00000000000040008000000000000000'), 'refund details'),
        'OrderNotFound',
      );
      // The library's promise has no timeout: a broadcast the service cannot carry (no node here) must still be answered.
      const broadcast = client.broadcastTransaction({ onchainTicker: 'ETH', signedTxHex: '0xf86c' });
      assert.equal(await rejection(broadcast, 'broadcastTransaction'), 'NoBackendConfigured');
      assert.ok(client.connected);
    });

    test("block heights by REDSHIFT's subnet names, echoed back as the wallet wrote them", async () => {
      const client = await wallet();
      const plain = await wallet();
      const heights: unknown[] = [];
      const plainHeights: unknown[] = [];
      client.onBlockHeightChanged((update) => heights.push(update));
      plain.onBlockHeightChanged((update) => plainHeights.push(update));
      await client.subscribeToBlockHeight(Network.ETHEREUM, Subnet.KOVAN_TESTNET);
      await client.subscribeToBlockHeight(Network.ETHEREUM, Subnet.GANACHE_SIMNET);
      await client.subscribeToBlockHeight(Network.BITCOIN, Subnet.MAINNET);
      await plain.subscribeToBlockHeight('Ethereum', 'TESTNET');
      assert.equal(
        await rejection(client.subscribeToBlockHeight(Network.BITCOIN, Subnet.KOVAN_TESTNET), 'bitcoin kovan'),
        'InvalidNetworkOrSubnet',
      );
      assert.equal(
        await rejection(client.subscribeToBlockHeight(Network.BITCOIN, Subnet.TESTNET), 'bitcoin testnet'),
        'InvalidNetworkOrSubnet',
      );

      await harness.fresh.store.setChainViews({
        bitcoin: { ...BITCOIN_VIEW, blockHeight: BITCOIN_VIEW.blockHeight + 1 },
        ethereum: { ...ETHEREUM_VIEW, blockHeight: ETHEREUM_VIEW.blockHeight + 2 },
      });
      await eventually(() => heights.length === 3 && plainHeights.length === 1, 'blockHeightChanged');
      const ethereumHeight = ETHEREUM_VIEW.blockHeight + 2;
      assert.deepEqual(
        new Set(heights.map((update) => JSON.stringify(update))),
        new Set(
          [
            { network: 'bitcoin', subnet: 'mainnet', height: BITCOIN_VIEW.blockHeight + 1 },
            { network: 'ethereum', subnet: 'kovan_testnet', height: ethereumHeight },
            { network: 'ethereum', subnet: 'ganache_simnet', height: ethereumHeight },
          ].map((update) => JSON.stringify(update)),
        ),
      );
      assert.deepEqual(plainHeights, [{ network: 'ethereum', subnet: 'testnet', height: ethereumHeight }]);

      await client.unsubscribeFromBlockHeight(Network.ETHEREUM, Subnet.KOVAN_TESTNET);
      await client.unsubscribeFromBlockHeight(Network.ETHEREUM, Subnet.GANACHE_SIMNET);
      await client.unsubscribeFromBlockHeight(Network.BITCOIN, Subnet.MAINNET);
      await harness.fresh.store.setChainViews({
        ...CHAINS,
        ethereum: { ...ETHEREUM_VIEW, blockHeight: ethereumHeight + 1 },
      });
      await eventually(() => plainHeights.length === 2, 'the next blockHeightChanged');
      assert.equal(heights.length, 3, 'an unsubscribed wallet still hears heights');
      await harness.fresh.store.setChainViews(CHAINS);
    });

    test('a quote, funding, and a provider that will not pay a blacklisted address: admin refund', async () => {
      bot = await runBot(
        harness.service.url,
        await addProvider(harness.fresh.store, 'compat-maker'),
        makerTerms('compat', 100n, 600_000),
        'v2',
      );
      const client = await wallet();
      const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 });
      const quote = (await client.requestQuote({ market: 'ETH_LBTC', invoice })) as {
        orderId: string;
        amount: string;
        details: unknown;
      };
      assert.match(quote.orderId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const updates: { orderId: string; state: string; transactionId?: string }[] = [];
      client.onOrderStateChanged((update) => updates.push(update as (typeof updates)[number]));
      await client.subscribeToOrderState(walletStyleId(quote.orderId));
      const fundTransaction = {
        type: 'FUND' as const,
        id: `0x${hex32('compat fund')}`,
        amount: 12_030_000_000_000_000n,
        blockHeight: ETHEREUM_VIEW.blockHeight,
      };
      const move = (
        from: 'WaitingForFundingTx' | 'WaitingForFundingTxConfirmation',
        to: 'WaitingForFundingTxConfirmation' | 'Funded',
      ) =>
        harness.service.transitions.apply({
          orderId: quote.orderId,
          from,
          to,
          at: Date.now(),
          cause: MOVE_CAUSE,
          ...(to === 'Funded' ? {} : { transaction: fundTransaction }),
        });
      assert.equal(await move('WaitingForFundingTx', 'WaitingForFundingTxConfirmation'), true);
      assert.equal(await move('WaitingForFundingTxConfirmation', 'Funded'), true);

      assert.deepEqual(await bot.bot.reportFailedPayment(quote.orderId, 'AddressBlacklisted'), { success: true });
      await eventually(
        () => updates.some((update) => update.state === 'AddressBlacklistedWaitingForRefundTx'),
        'the blacklisted state',
      );
      assert.deepEqual(
        updates.map((update) => update.state),
        ['WaitingForFundingTxConfirmation', 'Funded', 'AddressBlacklistedWaitingForRefundTx'],
      );
      assert.equal(updates[1]?.transactionId, fundTransaction.id);

      const refund = await client.requestRefundDetails(walletStyleId(quote.orderId));
      assert.deepEqual(refund, {
        market: 'ETH_LBTC',
        type: 'AdminRefund',
        state: 'AddressBlacklistedWaitingForRefundTx',
        refundableBalance: '0.01203',
        details: (refund as { details: unknown }).details,
      });
      assert.deepEqual(await http.getOrderRefundDetails(quote.orderId), refund);
      assert.equal(await http.getOrderState(walletStyleId(quote.orderId)), 'AddressBlacklistedWaitingForRefundTx');
    });

    test('an unexpected failure answers InternalServerError over socket.io; HTTP keeps its 500 sentence', async () => {
      const client = await wallet();
      // An import that left out the Ethereum chain view while Ethereum markets stay offered: no Ethereum
      // refund can be derived, a fault of the service, not of the wallet.
      const offered = await harness.fresh.store.getConfiguration();
      const importConfiguration = (chains: typeof CHAINS) =>
        harness.fresh.store.importAtomically((session) => session.writeConfiguration({ ...offered, chains }));
      await importConfiguration({ bitcoin: BITCOIN_VIEW });
      try {
        const id = walletStyleId(ethereumOrder.record.id);
        assert.equal(await rejection(client.requestRefundDetails(id), 'refund details'), 'InternalServerError');
        const response = await fetch(`${harness.service.url}/api/orders/${id}/refund`);
        assert.equal(response.status, 500);
        assert.equal(await response.text(), 'Something went wrong');
      } finally {
        await importConfiguration(CHAINS);
      }
    });
  });
}

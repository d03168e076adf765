import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BITCOIN_VIEW,
  buildOrder,
  CHAINS,
  configuration,
  ETHEREUM_VIEW,
  payReq,
  provider,
} from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import {
  connectClient,
  eventually,
  nextEvent,
  recordEvents,
  refusalOf,
  request,
  startTestService,
  succeed,
  type Client,
  type TestService,
} from '../support/ws/harness.js';
import { MOVE_CAUSE } from '../support/causes.js';

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}`);
  return response.json();
}

describe('/user/v1', () => {
  let harness: TestService;
  const completed = buildOrder({ label: 'complete', state: 'Complete', funds: [35_590n], preimageKnown: true });
  const waitingForRefund = buildOrder({ label: 'refund', state: 'WaitingForRefundTx', funds: [20_000n, 15_590n] });
  const ethereumRefund = buildOrder({
    label: 'eth refund',
    market: 'ETH_LBTC',
    state: 'WaitingForRefundTx',
    funds: [499_500_000_000_000_000n],
  });
  const funding = buildOrder({ label: 'being funded', createdAt: Date.now() });
  // Its window closed long ago while no instance ran: the sweep at start must catch it.
  const elapsedWhileDown = buildOrder({ label: 'elapsed while down', createdAt: Date.now() - 31 * 60 * 1000 });

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({
        providers: [provider('imported-maker', true, { BTC_LBTC: payReq(3600n, 1000n, 4294967n) })],
      }),
      orders: [
        completed.record,
        waitingForRefund.record,
        ethereumRefund.record,
        funding.record,
        elapsedWhileDown.record,
      ],
      sockets: { maxPayloadBytes: 9_000, maxBroadcastPayloadBytes: 15_000, maxMessageBytes: 20_000 },
    });
  });
  after(() => harness?.close());

  test('the sweep at start moves orders whose fund window closed while the service was down', async () => {
    await eventually(
      async () => (await harness.fresh.store.getOrder(elapsedWhileDown.record.id))?.state === 'FundWindowElapsed',
      'the sweep',
    );
    assert.equal((await harness.fresh.store.getOrder(funding.record.id))?.state, 'WaitingForFundingTx');
  });

  test('requestMarketRequirements answers what GET /api/markets/requirements answers', async () => {
    const user = await harness.connect('/user/v1');
    const overHttp = await getJson(`${harness.service.url}/api/markets/requirements`);
    assert.deepEqual(overHttp, [
      { market: 'BTC_LBTC', payReq: { minExpirationSeconds: '3600', minBaseUnits: '1000', maxBaseUnits: '4294967' } },
    ]);
    assert.deepEqual(await request(user, 'requestMarketRequirements', null), { success: true, message: overHttp });
  });

  test('requestRefundDetails answers what GET /api/orders/:id/refund answers, for both chains', async () => {
    const user = await harness.connect('/user/v1', 'v2');
    for (const order of [waitingForRefund, ethereumRefund, completed]) {
      const overHttp = await getJson(`${harness.service.url}/api/orders/${order.record.id}/refund`);
      assert.deepEqual(
        await succeed(user, 'requestRefundDetails', { orderId: order.record.id.toUpperCase() }),
        overHttp,
      );
    }
  });

  test('order lookups refuse with InvalidOrderId and OrderNotFound', async () => {
    const user = await harness.connect('/user/v1');
    for (const event of ['requestRefundDetails', 'subscribeToOrderState']) {
      assert.equal(await refusalOf(user, event, { orderId: 'not-a-uuid' }), 'InvalidOrderId');
      assert.equal(await refusalOf(user, event, null), 'InvalidOrderId');
      assert.equal(await refusalOf(user, event, { orderId: '00000000-0000-4000-8000-000000000000' }), 'OrderNotFound');
    }
    assert.equal(await refusalOf(user, 'unsubscribeFromOrderState', { orderId: 7 }), 'InvalidOrderId');
  });

  test('stateChanged reaches subscribers of the order only, until they unsubscribe', async () => {
    const subscriber = await harness.connect('/user/v1');
    const legacySubscriber = await harness.connect('/user/v1', 'v2');
    const bystander = await harness.connect('/user/v1');
    const seenByBystander = recordEvents(bystander, 'stateChanged');
    await succeed(subscriber, 'subscribeToOrderState', { orderId: funding.record.id });
    await succeed(legacySubscriber, 'subscribeToOrderState', { orderId: funding.record.id.replaceAll('-', '') });

    const fundTransaction = { type: 'FUND' as const, id: 'f'.repeat(64), amount: 35_590n, outputIndex: 1 };
    const arrivals = [nextEvent(subscriber, 'stateChanged'), nextEvent(legacySubscriber, 'stateChanged')];
    const moved = await harness.service.transitions.apply({
      orderId: funding.record.id,
      from: 'WaitingForFundingTx',
      to: 'WaitingForFundingTxConfirmation',
      at: Date.now(),
      transaction: fundTransaction,
      cause: MOVE_CAUSE,
    });
    assert.equal(moved, true);
    for (const event of await Promise.all(arrivals)) {
      assert.deepEqual(event, {
        orderId: funding.record.id,
        state: 'WaitingForFundingTxConfirmation',
        sequence: 2,
        transactionId: fundTransaction.id,
      });
    }

    await succeed(legacySubscriber, 'unsubscribeFromOrderState', { orderId: funding.record.id });
    const seenAfterLeaving = recordEvents(legacySubscriber, 'stateChanged');
    const funded = nextEvent(subscriber, 'stateChanged');
    await harness.service.transitions.apply({
      orderId: funding.record.id,
      from: 'WaitingForFundingTxConfirmation',
      to: 'Funded',
      at: Date.now(),
      cause: MOVE_CAUSE,
    });
    assert.deepEqual(await funded, {
      orderId: funding.record.id,
      state: 'Funded',
      sequence: 3,
      transactionId: fundTransaction.id,
    });
    await sleep(50);
    assert.deepEqual(seenAfterLeaving, []);
    assert.deepEqual(seenByBystander, []);
  });

  test('blockHeightChanged follows the chain views in the store, per chain and network', async () => {
    const user = await harness.connect('/user/v1');
    const legacy = await harness.connect('/user/v1', 'v2');
    assert.equal(
      await refusalOf(user, 'subscribeToBlockHeight', { network: 'bitcoin', subnet: 'testnet' }),
      'InvalidNetworkOrSubnet',
    );
    assert.equal(
      await refusalOf(user, 'subscribeToBlockHeight', { network: 'litecoin', subnet: 'mainnet' }),
      'InvalidNetworkOrSubnet',
    );
    assert.equal(await refusalOf(user, 'subscribeToBlockHeight', null), 'InvalidNetworkOrSubnet');
    assert.equal(await refusalOf(user, 'unsubscribeFromBlockHeight', { network: 'bitcoin' }), 'InvalidNetworkOrSubnet');
    await succeed(user, 'subscribeToBlockHeight', { network: 'bitcoin', subnet: 'mainnet' });
    await succeed(legacy, 'subscribeToBlockHeight', { network: 'Ethereum', subnet: 'MAINNET' });
    const bitcoinHeights = recordEvents(user, 'blockHeightChanged');
    const ethereumHeights = recordEvents(legacy, 'blockHeightChanged');

    await harness.fresh.store.setChainViews({
      ...CHAINS,
      bitcoin: { ...BITCOIN_VIEW, blockHeight: BITCOIN_VIEW.blockHeight + 1 },
    });
    await eventually(() => bitcoinHeights.length === 1, 'the bitcoin height');
    await harness.fresh.store.setChainViews({
      bitcoin: { ...BITCOIN_VIEW, blockHeight: BITCOIN_VIEW.blockHeight + 1 },
      ethereum: { ...ETHEREUM_VIEW, blockHeight: ETHEREUM_VIEW.blockHeight + 7 },
    });
    await eventually(() => ethereumHeights.length === 1, 'the ethereum height');
    assert.deepEqual(bitcoinHeights, [{ network: 'bitcoin', subnet: 'mainnet', height: BITCOIN_VIEW.blockHeight + 1 }]);
    assert.deepEqual(ethereumHeights, [
      { network: 'ethereum', subnet: 'mainnet', height: ETHEREUM_VIEW.blockHeight + 7 },
    ]);

    await succeed(user, 'unsubscribeFromBlockHeight', { network: 'bitcoin', subnet: 'mainnet' });
    await harness.fresh.store.setChainViews({
      ...CHAINS,
      bitcoin: { ...BITCOIN_VIEW, blockHeight: BITCOIN_VIEW.blockHeight + 2 },
    });
    await eventually(() => ethereumHeights.length === 2, 'the ethereum height going back');
    assert.equal(bitcoinHeights.length, 1);
  });

  test('quote requests are validated before any provider is asked', async () => {
    const user = await harness.connect('/user/v1', 'v2');
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7200 });
    assert.equal(await refusalOf(user, 'requestQuote', null), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(await refusalOf(user, 'requestQuote', { market: 'LTC_LBTC', invoice }), 'InvalidMarket');
    assert.equal(
      await refusalOf(user, 'requestQuote', { market: 'eth_lbtc', invoice }),
      'NoQuoteProvidersForTheRequestedMarket',
    );
    // The imported provider counts as active, but nobody is subscribed to answer.
    assert.equal(
      await refusalOf(user, 'requestQuote', { market: 'btc_lbtc', invoice, refundAddress: refundAddressFor('user') }),
      'NoQuotesAvailable',
    );
  });

  test('PayloadTooLarge for an event payload over the limit; a message over the hard cap disconnects', async () => {
    const user = await harness.connect('/user/v1');
    assert.equal(
      await refusalOf(user, 'requestQuote', { market: 'BTC_LBTC', invoice: 'x'.repeat(10_000) }),
      'PayloadTooLarge',
    );
    assert.equal(user.connected, true);
    user.emit('requestQuote', { market: 'BTC_LBTC', invoice: 'x'.repeat(30_000) }, () => {});
    await eventually(() => !user.connected, 'the disconnection');
  });

  test('requests without an ack callback are still carried out, and refusals without one do no harm', async () => {
    const user = await harness.connect('/user/v1');
    user.emit('requestQuote', { market: 'nope' });
    user.emit('subscribeToBlockHeight', { network: 'bitcoin', subnet: 'mainnet' });
    const heights = recordEvents<{ height: number }>(user, 'blockHeightChanged');
    let height = BITCOIN_VIEW.blockHeight + 100;
    await eventually(async () => {
      height += 1;
      await harness.fresh.store.setChainViews({ ...CHAINS, bitcoin: { ...BITCOIN_VIEW, blockHeight: height } });
      await sleep(60);
      return heights.length > 0;
    }, 'a height after subscribing without an ack');
    assert.equal(user.connected, true);
  });
});

describe('/user/v1 rate limits', () => {
  let harness: TestService;

  before(async () => {
    harness = await startTestService('sqlite', {
      sockets: {
        quoteRequestsPerConnection: { burst: 2, perSecond: 0.001 },
        quoteRequestsPerAddress: { burst: 3, perSecond: 0.001 },
        eventsPerConnection: { burst: 6, perSecond: 0.001 },
      },
    });
  });
  after(() => harness?.close());

  test('RateLimitExceeded per connection, per address, and for any event flood', async () => {
    const first = await harness.connect('/user/v1');
    const second = await harness.connect('/user/v1');
    assert.equal(await refusalOf(first, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(await refusalOf(first, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(await refusalOf(first, 'requestQuote', {}), 'RateLimitExceeded');
    // Same address: one request left for the address as a whole.
    assert.equal(await refusalOf(second, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(await refusalOf(second, 'requestQuote', {}), 'RateLimitExceeded');

    for (let index = 0; index < 3; index += 1) await succeed(first, 'requestMarketRequirements', null);
    assert.equal(await refusalOf(first, 'requestMarketRequirements', null), 'RateLimitExceeded');
  });
});

describe('/user/v1 behind proxies', () => {
  const oneQuoteRequest = { quoteRequestsPerAddress: { burst: 1, perSecond: 0.001 } };
  let byAddress: TestService;
  let byHops: TestService;

  before(async () => {
    byAddress = await startTestService('sqlite', {
      sockets: { trustProxy: ['loopback', '10.0.0.0/8'], ...oneQuoteRequest },
    });
    byHops = await startTestService('sqlite', { sockets: { trustProxy: 1, ...oneQuoteRequest } });
  });
  after(async () => {
    await byAddress?.close();
    await byHops?.close();
  });

  async function connect(harness: TestService, forwardedFor: string): Promise<Client> {
    const client = await connectClient(harness.service.url, '/user/v1', 'v4', { 'x-forwarded-for': forwardedFor });
    harness.clients.push(client);
    return client;
  }

  test('trusted by address, the per-address limit follows the address the farthest trusted proxy saw', async () => {
    const alice = await connect(byAddress, '203.0.113.7, 10.0.0.1');
    const aliceAgain = await connect(byAddress, '203.0.113.7');
    // Entries left of the first untrusted hop are the client's own writing and are never read.
    const aliceSpoofing = await connect(byAddress, '198.51.100.99, 203.0.113.7, 10.0.0.1');
    const bob = await connect(byAddress, '198.51.100.4');
    assert.equal(await refusalOf(alice, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(await refusalOf(aliceAgain, 'requestQuote', {}), 'RateLimitExceeded');
    assert.equal(await refusalOf(aliceSpoofing, 'requestQuote', {}), 'RateLimitExceeded');
    assert.equal(await refusalOf(bob, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
  });

  test('trusted by hop count, only the entry the nearest proxy appended is read', async () => {
    const first = await connect(byHops, '192.0.2.1, 203.0.113.50');
    const second = await connect(byHops, '192.0.2.2, 203.0.113.50');
    assert.equal(await refusalOf(first, 'requestQuote', {}), 'InvalidOrMissingQuoteRequestFields');
    assert.equal(
      await refusalOf(second, 'requestQuote', {}),
      'RateLimitExceeded',
      'a new first entry is no new budget',
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildOrder, configuration, payReq, provider } from '../support/fixtures.js';
import {
  addProvider,
  eventually,
  refusalOf,
  startTestService,
  succeed,
  type Client,
  type ProviderKeys,
  type TestService,
} from '../support/ws/harness.js';

const BTC_CONFIGURATION = {
  BTC_LBTC: { payReq: { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '500000' } },
};

async function requirementsOverHttp(harness: TestService): Promise<unknown> {
  return (await fetch(`${harness.service.url}/api/markets/requirements`)).json();
}

async function activeFlag(harness: TestService, id: string): Promise<boolean | undefined> {
  const { providers } = await harness.fresh.store.getConfiguration();
  return providers.find((record) => record.id === id)?.active;
}

describe('/provider/v1', () => {
  let harness: TestService;
  let maker: ProviderKeys;

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({
        providers: [
          // Left active by an instance that crashed: it has a credential, so presence decides.
          provider('crashed-maker', true, { BTC_LBTC: payReq(60n, 1n, 2n) }),
          // Imported without a credential: it never connects and keeps its flag.
          provider('imported-maker', true, { ETH_LBTC: payReq(3600n, 10_000n, 2_000_000n) }),
        ],
      }),
      engine: { presenceIntervalMs: 50 },
      sockets: { authenticationsPerAddress: { burst: 30, perSecond: 0.001 } },
    });
    maker = await addProvider(harness.fresh.store, 'maker-1');
    await addProvider(harness.fresh.store, 'crashed-maker');
  });
  after(() => harness?.close());

  async function authenticated(keys: ProviderKeys = maker, generation: 'v4' | 'v2' = 'v4'): Promise<Client> {
    const socket = await harness.connect('/provider/v1', generation);
    await succeed(socket, 'authenticate', keys);
    return socket;
  }

  test('a provider left active by a crashed instance is marked inactive; an imported one is left alone', async () => {
    await eventually(async () => (await activeFlag(harness, 'crashed-maker')) === false, 'the presence check');
    assert.equal(await activeFlag(harness, 'imported-maker'), true);
  });

  test('nothing but authenticate is accepted before authenticating', async () => {
    const socket = await harness.connect('/provider/v1', 'v2');
    for (const [event, payload] of [
      ['activeConfiguration', BTC_CONFIGURATION],
      ['subscribeToQuotes', ['BTC_LBTC']],
      ['unsubscribeFromQuotes', ['BTC_LBTC']],
      ['makerQuote', {}],
      ['paymentResult', {}],
    ] as const) {
      assert.equal(await refusalOf(socket, event, payload), 'InvalidOrMissingCredentials', event);
    }
    assert.equal(
      await refusalOf(socket, 'authenticate', { apiKey: maker.apiKey, secretKey: 'wrong' }),
      'InvalidOrMissingCredentials',
    );
    assert.equal(await refusalOf(socket, 'authenticate', null), 'InvalidOrMissingCredentials');
    await succeed(socket, 'authenticate', maker);
    await succeed(socket, 'activeConfiguration', {});
  });

  test('one connection speaks for one provider', async () => {
    const other = await addProvider(harness.fresh.store, 'maker-other');
    const socket = await authenticated();
    assert.equal(await refusalOf(socket, 'authenticate', other), 'InvalidOrMissingCredentials');
    await succeed(socket, 'authenticate', maker);
  });

  test('configuration and subscriptions are validated', async () => {
    const socket = await authenticated();
    assert.equal(
      await refusalOf(socket, 'activeConfiguration', { BTC_LBTC: {} }),
      'InvalidOrMissingActiveConfigurationFields',
    );
    assert.equal(
      await refusalOf(socket, 'activeConfiguration', { TBTC_LTBTC: BTC_CONFIGURATION.BTC_LBTC }),
      'InvalidOrMissingActiveConfigurationFields',
    );
    for (const payload of [null, 'BTC_LBTC', [], ['LTC_LBTC'], ['SBTC_LSBTC'], [7]]) {
      assert.equal(
        await refusalOf(socket, 'subscribeToQuotes', payload),
        'InvalidOrMissingMarkets',
        JSON.stringify(payload),
      );
    }
    assert.equal(
      await refusalOf(socket, 'subscribeToQuotes', ['BTC_LBTC']),
      'InvalidOrMissingActiveConfigurationFields',
    );
    await succeed(socket, 'activeConfiguration', BTC_CONFIGURATION);
    await succeed(socket, 'subscribeToQuotes', ['btc_lbtc']);
    assert.equal(
      await refusalOf(socket, 'subscribeToQuotes', ['BTC_LBTC', 'ETH_LBTC']),
      'InvalidOrMissingActiveConfigurationFields',
    );
    await succeed(socket, 'unsubscribeFromQuotes', ['BTC_LBTC']);
    socket.close();
    await eventually(async () => (await activeFlag(harness, 'maker-1')) === false, 'maker-1 to leave');
  });

  test('active means authenticated, connected and configured; the HTTP requirements follow', async () => {
    const imported = {
      market: 'ETH_LBTC',
      payReq: { minExpirationSeconds: '3600', minBaseUnits: '10000', maxBaseUnits: '2000000' },
    };
    assert.deepEqual(await requirementsOverHttp(harness), [imported]);

    const first = await authenticated();
    const second = await authenticated(maker, 'v2');
    await succeed(first, 'activeConfiguration', BTC_CONFIGURATION);
    await succeed(second, 'activeConfiguration', BTC_CONFIGURATION);
    const btc = { market: 'BTC_LBTC', payReq: BTC_CONFIGURATION.BTC_LBTC.payReq };
    assert.deepEqual(await requirementsOverHttp(harness), [btc, imported]);

    // The provider still serves through its other connection.
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(await activeFlag(harness, 'maker-1'), true);

    second.close();
    await eventually(async () => (await activeFlag(harness, 'maker-1')) === false, 'the last connection to close');
    assert.deepEqual(await requirementsOverHttp(harness), [imported]);
  });

  test('a provider still serving is marked active again when another instance wrongly cleared its flag', async () => {
    const socket = await authenticated();
    await succeed(socket, 'activeConfiguration', BTC_CONFIGURATION);
    // What an instance shutting down does for a provider also connected elsewhere.
    await harness.fresh.store.setProviderActive('maker-1', false);
    await eventually(async () => (await activeFlag(harness, 'maker-1')) === true, 'the presence check');
    socket.close();
    await eventually(async () => (await activeFlag(harness, 'maker-1')) === false, 'maker-1 to leave');
  });

  test('an empty configuration makes the provider inactive', async () => {
    const socket = await authenticated();
    await succeed(socket, 'activeConfiguration', BTC_CONFIGURATION);
    assert.equal(await activeFlag(harness, 'maker-1'), true);
    await succeed(socket, 'activeConfiguration', {});
    assert.equal(await activeFlag(harness, 'maker-1'), false);
  });

  test('a revoked provider is disconnected and marked inactive', async () => {
    const keys = await addProvider(harness.fresh.store, 'maker-revoked');
    const socket = await authenticated(keys);
    await succeed(socket, 'activeConfiguration', BTC_CONFIGURATION);
    assert.equal(await activeFlag(harness, 'maker-revoked'), true);
    await harness.fresh.store.revokeProviderCredential('maker-revoked', Date.now());
    await eventually(() => !socket.connected, 'the disconnection');
    await eventually(async () => (await activeFlag(harness, 'maker-revoked')) === false, 'the inactive flag');
  });

  test('maker quotes and payment results are checked before anything else', async () => {
    const socket = await authenticated();
    assert.equal(await refusalOf(socket, 'makerQuote', { orderId: 'nope' }), 'InvalidOrMissingQuoteFields');
    assert.equal(await refusalOf(socket, 'makerQuote', null), 'InvalidOrMissingQuoteFields');
    assert.equal(
      await refusalOf(socket, 'makerQuote', { orderId: '00000000-0000-4000-8000-000000000000' }),
      'QuoteSubmittedTooLate',
    );
    assert.equal(await refusalOf(socket, 'paymentResult', { orderId: 'nope', success: true }), 'InvalidOrderId');
    assert.equal(
      await refusalOf(socket, 'paymentResult', { orderId: '00000000-0000-4000-8000-000000000000', success: true }),
      'OrderNotFound',
    );
  });

  test('paymentResult from a provider that did not win the order is refused; the winner is heard', async () => {
    const won = buildOrder({ label: 'won by maker-1', state: 'Funded', funds: [35_590n] });
    await harness.fresh.store.createOrder(
      { ...won.record, providerId: 'maker-1' },
      { source: 'request', reason: 'requestQuote' },
    );
    const orderId = won.record.id;
    const rival = await authenticated(await addProvider(harness.fresh.store, 'maker-rival'));
    const blacklisted = { orderId, success: false, failedReason: 'AddressBlacklisted' };
    assert.equal(await refusalOf(rival, 'paymentResult', blacklisted), 'OrderNotWonByProvider');
    assert.equal(
      await refusalOf(rival, 'paymentResult', { orderId, success: true, preimage: won.preimage }),
      'OrderNotWonByProvider',
    );
    assert.equal(
      await refusalOf(rival, 'paymentResult', { ...blacklisted, failedReason: 'Sorry' }),
      'InvalidFailedReason',
    );
    assert.equal((await harness.fresh.store.getOrder(orderId))?.state, 'Funded');

    await succeed(await authenticated(), 'paymentResult', blacklisted);
    assert.equal((await harness.fresh.store.getOrder(orderId))?.state, 'AddressBlacklistedWaitingForRefundTx');
  });
});

describe('/provider/v1 authentication flood', () => {
  let harness: TestService;

  before(async () => {
    harness = await startTestService('sqlite', {
      sockets: { authenticationsPerAddress: { burst: 2, perSecond: 0.001 } },
    });
  });
  after(() => harness?.close());

  test('RateLimitExceeded once an address used up its authentication attempts, even on new connections', async () => {
    const keys = await addProvider(harness.fresh.store, 'maker-1');
    const first = await harness.connect('/provider/v1');
    assert.equal(
      await refusalOf(first, 'authenticate', { ...keys, secretKey: 'guess-1' }),
      'InvalidOrMissingCredentials',
    );
    const second = await harness.connect('/provider/v1');
    assert.equal(
      await refusalOf(second, 'authenticate', { ...keys, secretKey: 'guess-2' }),
      'InvalidOrMissingCredentials',
    );
    assert.equal(await refusalOf(second, 'authenticate', keys), 'RateLimitExceeded');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { configuration, payReq, provider } from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { assertJson, assertToken, openApi, type OpenApi } from '../support/api/harness.js';

// More than 2^64, so any detour through a JS number or a 64-bit column would show.
const HUGE_MAX = 123456789012345678901234567890n;

for (const kind of STORE_KINDS) {
  describe(`market endpoints on ${kind}`, { skip: skipReason(kind) }, () => {
    describe('with several providers', () => {
      let api: OpenApi;
      before(async () => {
        api = await openApi(kind, {
          configuration: configuration({
            // Not alphabetical: Get Markets keeps the configured order.
            markets: ['ETH_LBTC', 'BTC_LBTC', 'SBTC_LSBTC'],
            providers: [
              provider('maker-a', true, {
                BTC_LBTC: payReq(3600n, 1000n, 4294967n),
                ETH_LBTC: payReq(7200n, 5000n, 100000n),
              }),
              provider('maker-b', true, { BTC_LBTC: payReq(1800n, 20000n, HUGE_MAX) }),
              // Inactive providers do not count, however loose their terms.
              provider('maker-c', false, {
                BTC_LBTC: payReq(1n, 1n, HUGE_MAX * 10n),
                SBTC_LSBTC: payReq(60n, 1n, 10n),
              }),
              // A market nobody offers does not appear even though an active provider serves it.
              provider('maker-d', true, { TBTC_LTBTC: payReq(60n, 1n, 10n) }),
            ],
          }),
        });
      });
      after(() => api.close());

      test('Get Markets lists the offered markets in configured order', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets' });
        assertJson(response, [
          { onchainTicker: 'ETH', offchainTicker: 'LBTC', market: 'ETH_LBTC' },
          { onchainTicker: 'BTC', offchainTicker: 'LBTC', market: 'BTC_LBTC' },
          { onchainTicker: 'SBTC', offchainTicker: 'LSBTC', market: 'SBTC_LSBTC' },
        ]);
      });

      test('all requirements: smallest minimums and largest maximum of the active providers, per served market', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets/requirements' });
        assertJson(response, [
          {
            market: 'ETH_LBTC',
            payReq: { minExpirationSeconds: '7200', minBaseUnits: '5000', maxBaseUnits: '100000' },
          },
          {
            market: 'BTC_LBTC',
            payReq: {
              minExpirationSeconds: '1800',
              minBaseUnits: '1000',
              maxBaseUnits: '123456789012345678901234567890',
            },
          },
        ]);
      });

      test('one market, named in any case, answers in upper case', async () => {
        for (const name of ['BTC_LBTC', 'btc_lbtc', 'Btc_LbTc']) {
          const response = await api.app.inject({ method: 'GET', url: `/api/markets/${name}/requirements` });
          assertJson(response, {
            market: 'BTC_LBTC',
            payReq: {
              minExpirationSeconds: '1800',
              minBaseUnits: '1000',
              maxBaseUnits: '123456789012345678901234567890',
            },
          });
        }
      });

      test('InvalidMarket for names that are not an offered market', async () => {
        // Unknown, known but not offered, an on-chain ticker alone, a market spelled backwards.
        for (const name of ['DOGE_LBTC', 'TBTC_LTBTC', 'tbtc_ltbtc', 'BTC', 'LBTC_BTC', 'requirements']) {
          const response = await api.app.inject({ method: 'GET', url: `/api/markets/${name}/requirements` });
          assertToken(response, 400, 'InvalidMarket');
        }
      });

      test('NoQuoteProvidersForTheRequestedMarket for an offered market only inactive providers serve', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets/sbtc_lsbtc/requirements' });
        assertToken(response, 400, 'NoQuoteProvidersForTheRequestedMarket');
      });
    });

    describe('with no active provider', () => {
      let api: OpenApi;
      before(async () => {
        api = await openApi(kind, {
          configuration: configuration({
            providers: [provider('maker-asleep', false, { BTC_LBTC: payReq(3600n, 1000n, 4294967n) })],
          }),
        });
      });
      after(() => api.close());

      test('all requirements is an empty list', async () => {
        assertJson(await api.app.inject({ method: 'GET', url: '/api/markets/requirements' }), []);
      });

      test('NoQuoteProvidersAvailable for an offered market', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets/BTC_LBTC/requirements' });
        assertToken(response, 400, 'NoQuoteProvidersAvailable');
      });

      test('InvalidMarket is checked before provider availability', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets/TBTC_LTBTC/requirements' });
        assertToken(response, 400, 'InvalidMarket');
      });

      test('Get Markets does not depend on providers', async () => {
        const response = await api.app.inject({ method: 'GET', url: '/api/markets' });
        assertJson(response, [
          { onchainTicker: 'BTC', offchainTicker: 'LBTC', market: 'BTC_LBTC' },
          { onchainTicker: 'ETH', offchainTicker: 'LBTC', market: 'ETH_LBTC' },
        ]);
      });
    });

    describe('with no offered market', () => {
      let api: OpenApi;
      before(async () => {
        api = await openApi(kind, { configuration: configuration({ markets: [] }) });
      });
      after(() => api.close());

      test('both lists are empty and every market is invalid', async () => {
        assertJson(await api.app.inject({ method: 'GET', url: '/api/markets' }), []);
        assertJson(await api.app.inject({ method: 'GET', url: '/api/markets/requirements' }), []);
        const response = await api.app.inject({ method: 'GET', url: '/api/markets/BTC_LBTC/requirements' });
        assertToken(response, 400, 'InvalidMarket');
      });
    });

    test('a provider switched off after start is no longer counted', async () => {
      const api = await openApi(kind, {
        configuration: configuration({
          providers: [
            provider('maker-1', true, { BTC_LBTC: payReq(3600n, 1000n, 4294967n) }),
            provider('maker-2', true, { BTC_LBTC: payReq(600n, 500n, 5000000n) }),
          ],
        }),
      });
      try {
        const url = '/api/markets/BTC_LBTC/requirements';
        const before = JSON.parse((await api.app.inject({ method: 'GET', url })).body);
        assert.deepEqual(before.payReq, { minExpirationSeconds: '600', minBaseUnits: '500', maxBaseUnits: '5000000' });
        await api.store.setProviderActive('maker-2', false);
        assertJson(await api.app.inject({ method: 'GET', url }), {
          market: 'BTC_LBTC',
          payReq: { minExpirationSeconds: '3600', minBaseUnits: '1000', maxBaseUnits: '4294967' },
        });
      } finally {
        await api.close();
      }
    });
  });
}

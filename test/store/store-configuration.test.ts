import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EthereumChainView, ProviderCredential } from '../../src/domain/order.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { CONFIGURATION, makeProvider, useFreshStore } from '../support/store/fixtures.js';

const PAY_REQ = { minExpirationSeconds: 600n, minBaseUnits: 2n, maxBaseUnits: 3n };

function credential(name: string, fields: Partial<ProviderCredential> = {}): ProviderCredential {
  return { name, apiKey: `key-${name}`, secretHash: `scrypt$${name}`, createdAt: 1_650_000_000_000, ...fields };
}

/**
 * An Ethereum view as the store reads it back: a snapshot names only the current swap contract, which the store
 * records in its contract history as the second version from block 0 (docs/swap-contract.md).
 */
function withItsContractHistory(view: EthereumChainView | undefined): EthereumChainView | undefined {
  if (view === undefined) return undefined;
  return { ...view, contracts: [{ address: view.swapContractAddress, since: 0, version: 2 }] };
}
for (const kind of STORE_KINDS) {
  describe(`${kind} store: configuration and providers`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('a new store has no markets, chain views or providers', async () => {
      assert.deepStrictEqual(await fresh.store().getConfiguration(), {
        markets: [],
        chains: {},
        providers: [],
        tokens: [],
      });
    });

    test('configuration reads back with markets as given, providers by id, provider markets as given', async () => {
      await fresh.store().importAtomically((session) => session.writeConfiguration(CONFIGURATION));
      const [makerB, makerA] = CONFIGURATION.providers;
      assert.deepStrictEqual(await fresh.store().getConfiguration(), {
        markets: ['ETH_LBTC', 'BTC_LBTC'],
        chains: { ...CONFIGURATION.chains, ethereum: withItsContractHistory(CONFIGURATION.chains.ethereum) },
        providers: [makerA, makerB],
        tokens: [],
      });
      const stored = (await fresh.store().getConfiguration()).providers[1];
      assert.deepStrictEqual(Object.keys(stored?.markets ?? {}), ['ETH_LBTC', 'BTC_LBTC']);
    });

    test('writing configuration again replaces markets and chain views and upserts providers', async () => {
      await fresh.store().importAtomically((session) => session.writeConfiguration(CONFIGURATION));
      const replacedMakerB = makeProvider('maker-b', { BTC_LBTC: PAY_REQ }, false);
      await fresh.store().importAtomically((session) =>
        session.writeConfiguration({
          markets: ['BTC_LBTC'],
          chains: { bitcoin: { blockHeight: 700_000, feeTokensPerVirtualByte: 3 } },
          providers: [replacedMakerB, makeProvider('maker-c', {})],
          tokens: [],
        }),
      );
      assert.deepStrictEqual(await fresh.store().getConfiguration(), {
        markets: ['BTC_LBTC'],
        chains: { bitcoin: { blockHeight: 700_000, feeTokensPerVirtualByte: 3 } },
        providers: [CONFIGURATION.providers[1], replacedMakerB, makeProvider('maker-c', {})],
        tokens: [],
      });
    });

    test("tokens read back in the operator's order, and a new configuration replaces them", async () => {
      const usdc = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 } as const;
      const susdc = { ticker: 'SUSDC', network: 'simnet', address: `0x${'5f'.repeat(20)}`, decimals: 6 } as const;
      const dai = { ticker: 'DAI', network: 'mainnet', address: `0x${'6b'.repeat(20)}`, decimals: 18 } as const;
      await fresh.store().importAtomically((session) =>
        session.writeConfiguration({
          ...CONFIGURATION,
          markets: ['USDC_LBTC', 'SUSDC_LSBTC'],
          tokens: [usdc, susdc],
        }),
      );
      const stored = await fresh.store().getConfiguration();
      assert.deepStrictEqual(stored.tokens, [usdc, susdc]);
      assert.deepStrictEqual(stored.markets, ['USDC_LBTC', 'SUSDC_LSBTC']);
      await fresh
        .store()
        .importAtomically((session) => session.writeConfiguration({ ...CONFIGURATION, tokens: [dai, usdc] }));
      assert.deepStrictEqual((await fresh.store().getConfiguration()).tokens, [dai, usdc]);
    });

    test('addToken appends the token and offers its market, leaving providers and chain views as they are', async () => {
      const usdc = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 } as const;
      const dai = { ticker: 'DAI', network: 'mainnet', address: `0x${'6b'.repeat(20)}`, decimals: 18 } as const;
      await fresh.store().importAtomically((session) => session.writeConfiguration(CONFIGURATION));
      const before = await fresh.store().getConfiguration();
      // Moves the service makes meanwhile: adding a token must not write back an older copy of them.
      await fresh.store().setChainViews({ bitcoin: { blockHeight: 612_200, feeTokensPerVirtualByte: 2 } });
      await fresh.store().setProviderActive('maker-b', false);
      await fresh.store().addToken(usdc, 'USDC_LBTC');
      await fresh.store().addToken(dai, 'DAI_LBTC');
      const after = await fresh.store().getConfiguration();
      assert.deepStrictEqual(after.tokens, [usdc, dai]);
      assert.deepStrictEqual(after.markets, [...before.markets, 'USDC_LBTC', 'DAI_LBTC']);
      assert.deepStrictEqual(after.chains.bitcoin, { blockHeight: 612_200, feeTokensPerVirtualByte: 2 });
      assert.equal(after.providers.find((provider) => provider.id === 'maker-b')?.active, false);

      await assert.rejects(fresh.store().addToken({ ...usdc, ticker: 'USDX' }, 'USDX_LBTC'));
      await assert.rejects(fresh.store().addToken({ ...usdc, address: `0x${'11'.repeat(20)}` }, 'USDC_LBTC'));
      const unchanged = await fresh.store().getConfiguration();
      assert.deepStrictEqual(unchanged.tokens, [usdc, dai], 'a refused add writes nothing');
      assert.deepStrictEqual(unchanged.markets, after.markets);
    });

    test('the schema refuses a second token with the same contract on one network', async () => {
      const usdc = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 } as const;
      await assert.rejects(
        fresh
          .store()
          .importAtomically((session) =>
            session.writeConfiguration({ ...CONFIGURATION, tokens: [usdc, { ...usdc, ticker: 'USDX' }] }),
          ),
      );
      assert.deepStrictEqual((await fresh.store().getConfiguration()).tokens, []);
    });

    test('setChainViews updates the chains it names and keeps the others', async () => {
      await fresh.store().importAtomically((session) => session.writeConfiguration(CONFIGURATION));
      await fresh.store().setChainViews({ bitcoin: { blockHeight: 612_101, feeTokensPerVirtualByte: 0.25 } });
      assert.deepStrictEqual((await fresh.store().getConfiguration()).chains, {
        bitcoin: { blockHeight: 612_101, feeTokensPerVirtualByte: 0.25 },
        ethereum: withItsContractHistory(CONFIGURATION.chains.ethereum),
      });
    });

    test('upsertProvider inserts, then replaces markets and active flag', async () => {
      const huge = { minExpirationSeconds: 1n, minBaseUnits: 2n ** 64n, maxBaseUnits: 2n ** 255n + 1n };
      await fresh.store().upsertProvider(makeProvider('p', { ETH_LBTC: huge, BTC_LBTC: PAY_REQ }));
      assert.deepStrictEqual((await fresh.store().getConfiguration()).providers, [
        makeProvider('p', { ETH_LBTC: huge, BTC_LBTC: PAY_REQ }),
      ]);
      await fresh.store().upsertProvider(makeProvider('p', { BTC_LBTC: huge }, false));
      assert.deepStrictEqual((await fresh.store().getConfiguration()).providers, [
        makeProvider('p', { BTC_LBTC: huge }, false),
      ]);
    });

    test('setProviderActive flips only the active flag and ignores unknown providers', async () => {
      await fresh.store().upsertProvider(makeProvider('p', { BTC_LBTC: PAY_REQ }));
      await fresh.store().setProviderActive('p', false);
      await fresh.store().setProviderActive('nobody', true);
      assert.deepStrictEqual((await fresh.store().getConfiguration()).providers, [
        makeProvider('p', { BTC_LBTC: PAY_REQ }, false),
      ]);
      await fresh.store().setProviderActive('p', true);
      assert.equal((await fresh.store().getConfiguration()).providers[0]?.active, true);
    });
  });

  describe(`${kind} store: provider credentials`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    test('credentials are found by API key and listed by name', async () => {
      await fresh.store().addProviderCredential(credential('zeta'));
      await fresh.store().addProviderCredential(credential('alpha', { createdAt: 1_700_000_000_000 }));
      assert.deepStrictEqual(await fresh.store().findProviderCredentialByApiKey('key-alpha'), {
        ...credential('alpha'),
        createdAt: 1_700_000_000_000,
      });
      assert.equal(await fresh.store().findProviderCredentialByApiKey('key-missing'), undefined);
      const listed = await fresh.store().listProviderCredentials();
      assert.deepStrictEqual(
        listed.map((entry) => entry.name),
        ['alpha', 'zeta'],
      );
      assert.equal(Object.hasOwn(listed[0]!, 'revokedAt'), false);
    });

    test('a duplicate name or API key is refused', async () => {
      await fresh.store().addProviderCredential(credential('maker'));
      await assert.rejects(fresh.store().addProviderCredential(credential('maker', { apiKey: 'other-key' })));
      await assert.rejects(fresh.store().addProviderCredential(credential('other', { apiKey: 'key-maker' })));
      assert.deepStrictEqual(await fresh.store().listProviderCredentials(), [credential('maker')]);
    });

    test('revoking marks the credential once; revoking again or an unknown name resolves false', async () => {
      await fresh.store().addProviderCredential(credential('maker'));
      assert.equal(await fresh.store().revokeProviderCredential('maker', 1_700_000_000_001), true);
      assert.equal(await fresh.store().revokeProviderCredential('maker', 1_800_000_000_000), false);
      assert.equal(await fresh.store().revokeProviderCredential('ghost', 1), false);
      assert.deepStrictEqual(await fresh.store().findProviderCredentialByApiKey('key-maker'), {
        ...credential('maker'),
        revokedAt: 1_700_000_000_001,
      });
    });
  });
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { SnapshotError } from '../../src/snapshot/snapshot-error.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';
import {
  chunked,
  exportText,
  render,
  validDocument,
  type SnapshotDocument,
} from '../support/snapshot/snapshot-fixtures.js';

const USDC = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 };
const SUSDC = { ticker: 'SUSDC', network: 'simnet', address: `0x${'5f'.repeat(20)}`, decimals: 6 };

/** The valid sample with two tokens, USDC_LBTC offered and served, and its Ethereum order moved to USDC. */
function tokenDocument(): SnapshotDocument {
  const { version, markets, chains, providers, orders } = validDocument();
  const ethereumOrder = orders[2]!;
  const usdcOrder = {
    ...ethereumOrder,
    market: 'USDC_LBTC',
    amount: '1234.56',
    transactions: [
      { type: 'FUND', id: `0x${'dd'.repeat(32)}`, amount: '1234.56', blockHeight: 13_000_001 },
      { type: 'REFUND', id: `0x${'ee'.repeat(32)}`, blockHeight: 13_000_300 },
    ],
  };
  const servingUsdc = { ...providers[0]!, markets: { ...(providers[0]!.markets as object), USDC_LBTC: PAY_REQ } };
  return {
    version,
    tokens: [USDC, SUSDC],
    markets: [...markets, 'USDC_LBTC'],
    chains,
    providers: [servingUsdc, ...providers.slice(1)],
    orders: [orders[0]!, orders[1]!, usdcOrder],
  };
}

const PAY_REQ = { minExpirationSeconds: '3600', minBaseUnits: '1000', maxBaseUnits: '4294967' };

async function withStore<T>(kind: (typeof STORE_KINDS)[number], use: (fresh: FreshStore) => Promise<T>): Promise<T> {
  const fresh = await openFreshStore(kind);
  try {
    return await use(fresh);
  } finally {
    await fresh.dispose();
  }
}

async function refusal(kind: (typeof STORE_KINDS)[number], document: SnapshotDocument): Promise<string> {
  return withStore(kind, async ({ store }) => {
    try {
      await importSnapshot(store, chunked(render(document)));
    } catch (error) {
      assert.ok(error instanceof SnapshotError, String(error));
      assert.deepEqual((await store.getConfiguration()).tokens, [], 'a refused import leaves no token behind');
      return error.message;
    }
    assert.fail('the import was not refused');
  });
}

/** The document with its members in another order: JSON.stringify writes them in insertion order. */
function reordered(document: SnapshotDocument, keys: readonly string[]): SnapshotDocument {
  return Object.fromEntries(keys.map((key) => [key, document[key]])) as SnapshotDocument;
}

for (const kind of STORE_KINDS) {
  describe(`snapshot tokens on ${kind}`, { skip: skipReason(kind) }, () => {
    test('export -> import -> export is byte-identical, tokens right after the version', async () => {
      const first = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(tokenDocument())));
        return exportText(store);
      });
      const second = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(first, 7));
        return exportText(store);
      });
      assert.equal(second, first);
      assert.ok(
        first.startsWith(
          `{"version":1,\n"tokens":[\n${JSON.stringify(USDC)},\n${JSON.stringify(SUSDC)}\n],\n"markets":`,
        ),
      );
      const exported = JSON.parse(first) as SnapshotDocument;
      assert.deepEqual(exported.orders[2], tokenDocument().orders[2]);
    });

    test('a store without tokens exports no tokens member', async () => {
      const text = await withStore(kind, async ({ store }) => {
        await importSnapshot(store, chunked(render(validDocument())));
        return exportText(store);
      });
      assert.ok(!('tokens' in (JSON.parse(text) as object)));
    });

    test('tokens must come before the members that name their markets', async () => {
      // Only known-market orders, so that it is the late tokens that are refused, not the first order naming one.
      const document = { ...tokenDocument(), orders: tokenDocument().orders.slice(0, 2) };
      for (const keys of [
        ['version', 'markets', 'tokens', 'chains', 'providers', 'orders'],
        ['version', 'providers', 'tokens', 'markets', 'chains', 'orders'],
        ['version', 'orders', 'tokens', 'markets', 'chains', 'providers'],
      ]) {
        assert.equal(
          await refusal(kind, reordered(document, keys)),
          'tokens: must come before markets, providers and orders',
        );
      }
    });

    test('a bad token is named by its index and field', async () => {
      const document = tokenDocument();
      document.tokens = [USDC, { ...SUSDC, ticker: 'ETH' }];
      assert.equal(await refusal(kind, document), 'tokens[1]: ticker: ETH is a known ticker');
      document.tokens = [USDC, { ...SUSDC, address: USDC.address.toUpperCase().replace('0X', '0x') }];
      assert.match(await refusal(kind, document), /^tokens\[1\]: address: must be an Ethereum address in lower case/);
      document.tokens = [USDC, { ...USDC, ticker: 'USDX' }];
      assert.equal(
        await refusal(kind, document),
        'tokens[1]: address: is already the contract of tokens[0] on mainnet',
      );
      document.tokens = [{ ...USDC, decimals: '6' }];
      assert.equal(await refusal(kind, document), 'tokens[0]: decimals: must be a non-negative integer');
      document.tokens = [{ ...USDC, symbol: 'USDC' }];
      assert.equal(await refusal(kind, document), 'tokens[0]: symbol: unknown field');
    });

    test("a token market is unknown without its token, and amounts keep to the token's decimals", async () => {
      const withoutTokens = tokenDocument();
      delete withoutTokens.tokens;
      assert.match(await refusal(kind, withoutTokens), /^markets\[2\]: not a known market/);
      const tooPrecise = tokenDocument();
      tooPrecise.orders[2] = { ...tooPrecise.orders[2], amount: '1234.5600001' };
      assert.match(
        await refusal(kind, tooPrecise),
        /^orders\[2\] \(id [0-9a-f-]+\): amount: must be a decimal amount of USDC with at most 6 decimals$/,
      );
    });
  });
}

/** The configuration files the README's "Run a provider" links to are ones `lnswap provider` accepts. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseProviderConfig } from '../../src/provider/config/provider-config.js';

const example = (name: string) =>
  parseProviderConfig(JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as unknown);

test('examples/provider.json: LND, ether at a fixed rate', () => {
  const config = example('provider.json');
  assert.equal(config.lightning.kind, 'lnd');
  assert.deepEqual(
    config.markets.map(({ market, rate }) => [market.name, rate.kind]),
    [['ETH_LBTC', 'fixed']],
  );
  assert.equal(config.inventoryLimitMillisatoshis, 5_000_000_000n);
});

test('examples/provider-cln.json: Core Lightning, ether and a token at rates read from a URL', () => {
  const config = example('provider-cln.json');
  assert.equal(config.lightning.kind, 'cln');
  assert.deepEqual(
    config.markets.map(({ market, rate }) => [market.name, rate.kind, market.onchain.tokenAddress]),
    [
      ['ETH_LBTC', 'url', undefined],
      ['USDC_LBTC', 'url', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'],
    ],
  );
});

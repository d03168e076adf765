/** The configuration files docs/running-a-provider.md links to are ones `lnswap provider` accepts. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseProviderConfig } from '../../src/provider/config/provider-config.js';
import { repositoryPath } from '../support/repository.js';

const example = (name: string) =>
  parseProviderConfig(JSON.parse(readFileSync(repositoryPath('examples', name), 'utf8')) as unknown);

test('examples/provider.json: LND, ether at a rate read from a URL and bitcoin at a fixed one', () => {
  const config = example('provider.json');
  assert.equal(config.lightning.kind, 'lnd');
  assert.deepEqual(
    config.markets.map(({ market, rate }) => [market.name, rate.kind]),
    [
      ['ETH_LBTC', 'url'],
      ['BTC_LBTC', 'fixed'],
    ],
  );
  assert.equal(config.inventoryLimitMillisatoshis, 5_000_000_000n);
  assert.equal(config.bitcoin?.timelockBlocks, 72);
});

test('a Bitcoin payout address the claim could not pay is refused at start, before any invoice is paid', () => {
  const json = JSON.parse(readFileSync(repositoryPath('examples', 'provider.json'), 'utf8')) as {
    bitcoin: { payoutAddress: string };
  };
  const withPayout = (payoutAddress: string) => () =>
    parseProviderConfig({ ...json, bitcoin: { ...json.bitcoin, payoutAddress } });
  const refused =
    /bitcoin\.payoutAddress must be a P2PKH, P2SH, P2WPKH or P2WSH address of BTC_LBTC's network \(mainnet\)$/;
  // A testnet address, a checksum typo of the example's, and a taproot address no claim pays.
  for (const address of [
    'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdd',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
  ]) {
    assert.throws(withPayout(address), refused, address);
  }
  assert.doesNotThrow(withPayout('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'));
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ethereumChainFitsNetwork, ethereumChainMismatch, ethereumNetworkOf } from '../../src/domain/chain-networks.js';
import { catalogOf, KNOWN_CATALOG } from '../../src/domain/market-catalog.js';

test('mainnet Ethereum markets only on chain id 1, testnet and simnet ones never on it', () => {
  assert.equal(ethereumChainMismatch(1, ['BTC_LBTC', 'ETH_LBTC'], KNOWN_CATALOG), undefined);
  assert.equal(ethereumChainMismatch(31337, ['SETH_LSBTC'], KNOWN_CATALOG), undefined);
  assert.equal(ethereumChainMismatch(17000, ['KETH_LTBTC', 'TBTC_LTBTC'], KNOWN_CATALOG), undefined);
  assert.match(
    ethereumChainMismatch(31337, ['BTC_LBTC', 'ETH_LBTC'], KNOWN_CATALOG) ?? '',
    /chain id 31337 .* ETH_LBTC \(mainnet\)/,
  );
  assert.match(ethereumChainMismatch(1, ['KETH_LTBTC'], KNOWN_CATALOG) ?? '', /chain id 1 .* KETH_LTBTC \(testnet\)/);
  assert.match(ethereumChainMismatch(1, ['ETH_LBTC', 'SETH_LSBTC'], KNOWN_CATALOG) ?? '', /SETH_LSBTC \(simnet\)/);
  // Bitcoin markets say nothing about an Ethereum node.
  assert.equal(ethereumChainMismatch(31337, ['BTC_LBTC'], KNOWN_CATALOG), undefined);
  assert.equal(ethereumChainMismatch(1, ['SBTC_LSBTC'], KNOWN_CATALOG), undefined);
});

test("a configured token's market fits the chains its network does", () => {
  const catalog = catalogOf({
    tokens: [{ ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 }],
  });
  assert.equal(ethereumChainMismatch(1, ['USDC_LBTC'], catalog), undefined);
  assert.match(ethereumChainMismatch(31337, ['USDC_LBTC'], catalog) ?? '', /USDC_LBTC \(mainnet\)/);
});

test('testnet and simnet are told apart: development chains are simnet, every other test chain testnet', () => {
  assert.equal(ethereumNetworkOf(1), 'mainnet');
  assert.equal(ethereumNetworkOf(31337), 'simnet');
  assert.equal(ethereumNetworkOf(1337), 'simnet');
  assert.equal(ethereumNetworkOf(11155111), 'testnet');
  assert.equal(ethereumNetworkOf(42), 'testnet');
  assert.equal(ethereumChainFitsNetwork(31337, 'testnet'), false, 'a KETH transaction is not sent to Anvil');
  assert.equal(ethereumChainFitsNetwork(31337, 'simnet'), true);
  assert.match(
    ethereumChainMismatch(31337, ['KETH_LTBTC'], KNOWN_CATALOG) ?? '',
    /chain id 31337 .* KETH_LTBTC \(testnet\): it is a simnet chain/,
  );
  assert.match(ethereumChainMismatch(17000, ['SETH_LSBTC'], KNOWN_CATALOG) ?? '', /SETH_LSBTC \(simnet\)/);
});

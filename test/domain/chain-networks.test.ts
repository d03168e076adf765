import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ethereumChainFitsNetwork, ethereumChainMismatch, ethereumNetworkOf } from '../../src/domain/chain-networks.js';

test('mainnet Ethereum markets only on chain id 1, testnet and simnet ones never on it', () => {
  assert.equal(ethereumChainMismatch(1, ['BTC_LBTC', 'ETH_LBTC']), undefined);
  assert.equal(ethereumChainMismatch(31337, ['SETH_LSBTC']), undefined);
  assert.equal(ethereumChainMismatch(17000, ['KETH_LTBTC', 'TBTC_LTBTC']), undefined);
  assert.match(ethereumChainMismatch(31337, ['BTC_LBTC', 'ETH_LBTC']) ?? '', /chain id 31337 .* ETH_LBTC \(mainnet\)/);
  assert.match(ethereumChainMismatch(1, ['KETH_LTBTC']) ?? '', /chain id 1 .* KETH_LTBTC \(testnet\)/);
  assert.match(ethereumChainMismatch(1, ['ETH_LBTC', 'SETH_LSBTC']) ?? '', /SETH_LSBTC \(simnet\)/);
  // Bitcoin markets say nothing about an Ethereum node.
  assert.equal(ethereumChainMismatch(31337, ['BTC_LBTC']), undefined);
  assert.equal(ethereumChainMismatch(1, ['SBTC_LSBTC']), undefined);
});

test('testnet and simnet are told apart: development chains are simnet, every other test chain testnet', () => {
  assert.equal(ethereumNetworkOf(1), 'mainnet');
  assert.equal(ethereumNetworkOf(31337), 'simnet');
  assert.equal(ethereumNetworkOf(1337), 'simnet');
  assert.equal(ethereumNetworkOf(11155111), 'testnet');
  assert.equal(ethereumNetworkOf(42), 'testnet');
  assert.equal(ethereumChainFitsNetwork(31337, 'testnet'), false, 'a KETH transaction is not sent to Anvil');
  assert.equal(ethereumChainFitsNetwork(31337, 'simnet'), true);
  assert.match(ethereumChainMismatch(31337, ['KETH_LTBTC']) ?? '', /chain id 31337 .* KETH_LTBTC \(testnet\): it is a simnet chain/);
  assert.match(ethereumChainMismatch(17000, ['SETH_LSBTC']) ?? '', /SETH_LSBTC \(simnet\)/);
});

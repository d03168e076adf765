import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import { mnemonicAccounts } from '../../../src/demo/ethereum/mnemonic-accounts.js';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** BIP-39's all-zero-entropy mnemonic. */
const OTHER_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

test("the accounts from one seed are viem's mnemonicToAccount's, key for key", () => {
  const accounts = mnemonicAccounts(ANVIL_MNEMONIC, 6);
  assert.equal(accounts.length, 6);
  accounts.forEach((account, addressIndex) => {
    const expected = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex });
    assert.equal(account.address, expected.address);
    assert.deepEqual(account.getHdKey().privateKey, expected.getHdKey().privateKey);
  });
  // Anvil's first default account, as Anvil prints it at start.
  assert.equal(accounts[0]!.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
});

test('another mnemonic gives other accounts', () => {
  const [other] = mnemonicAccounts(OTHER_MNEMONIC, 1);
  assert.equal(other!.address, mnemonicToAccount(OTHER_MNEMONIC).address);
  assert.notEqual(other!.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
});

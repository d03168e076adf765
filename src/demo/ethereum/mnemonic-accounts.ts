import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { hdKeyToAccount, type HDAccount } from 'viem/accounts';

/**
 * The first `count` accounts of `mnemonic` (m/44'/60'/0'/0/0, /1, ...) as viem's `mnemonicToAccount` derives them,
 * from one seed: `mnemonicToAccount` stretches the mnemonic into its seed again for every account (2,048 rounds of
 * HMAC-SHA512 in JavaScript), while Node's native PBKDF2 (BIP-39's definition of the seed) does it once, natively.
 */
export function mnemonicAccounts(mnemonic: string, count: number): HDAccount[] {
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const master = HDKey.fromMasterSeed(seed);
  return Array.from({ length: count }, (_, addressIndex) => hdKeyToAccount(master, { addressIndex }));
}

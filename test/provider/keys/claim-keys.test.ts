import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, test } from 'node:test';
import { HDKey } from '@scure/bip32';
import secp256k1 from 'secp256k1';
import { parseSeed } from '../../../src/provider/keys/bitcoin-seed.js';
import { ClaimKeys, claimKeyPath } from '../../../src/provider/keys/claim-keys.js';
import { hex32 } from '../../support/fixtures.js';

const SEED_HEX = hex32('provider seed');
const ORDER = '0b3a7f62-4c1e-4a8e-9a0b-6a1f2d3c4b5e';

describe('claim keys per order from a BIP32 seed', () => {
  const keys = ClaimKeys.fromSeed(Buffer.from(SEED_HEX, 'hex'));

  test('the path is hardened at every level, from the order id, whatever its spelling', () => {
    const path = claimKeyPath(ORDER);
    assert.match(path, /^m\/9735'(\/\d+'){4}$/);
    assert.equal(claimKeyPath(ORDER.toUpperCase().replaceAll('-', '')), path);
    assert.notEqual(claimKeyPath('0b3a7f62-4c1e-4a8e-9a0b-6a1f2d3c4b5f'), path);
    assert.throws(() => claimKeyPath('not an order'), /not an order id/);
  });

  test('the key is the BIP32 key at that path, the same after a restart, another for another order', () => {
    const expected = HDKey.fromMasterSeed(Buffer.from(SEED_HEX, 'hex')).derive(claimKeyPath(ORDER));
    assert.equal(keys.publicKey(ORDER), Buffer.from(expected.publicKey!).toString('hex'));
    assert.equal(ClaimKeys.fromSeed(Buffer.from(SEED_HEX, 'hex')).publicKey(ORDER), keys.publicKey(ORDER));
    assert.notEqual(keys.publicKey('0b3a7f62-4c1e-4a8e-9a0b-6a1f2d3c4b5f'), keys.publicKey(ORDER));
    assert.notEqual(
      ClaimKeys.fromSeed(Buffer.from(hex32('other seed'), 'hex')).publicKey(ORDER),
      keys.publicKey(ORDER),
    );
  });

  test('a signature verifies under the order key (libsecp256k1), low S, and is deterministic', () => {
    const digest = Buffer.from(hex32('sighash'), 'hex');
    const signature = keys.sign(ORDER, digest);
    const publicKey = Buffer.from(keys.publicKey(ORDER), 'hex');
    assert.ok(secp256k1.ecdsaVerify(signature, digest, publicKey));
    assert.deepEqual(secp256k1.signatureNormalize(Uint8Array.from(signature)), signature, 'already low S');
    assert.deepEqual(keys.sign(ORDER, digest), signature);
    const other = Buffer.from(keys.publicKey('0b3a7f62-4c1e-4a8e-9a0b-6a1f2d3c4b5f'), 'hex');
    assert.equal(secp256k1.ecdsaVerify(signature, digest, other), false);
  });

  test('nothing of the seed shows in JSON, inspect or a string', () => {
    const seen = [JSON.stringify({ keys }), inspect(keys, { showHidden: true, depth: 9 }), String(keys)].join(' ');
    assert.doesNotMatch(seen, /xprv|tprv|privateKey|chainCode/i);
    assert.doesNotMatch(seen, new RegExp(SEED_HEX.slice(0, 16)));
  });

  test('the seed is hex, whitespace around it ignored, and an error never repeats it', () => {
    assert.equal(Buffer.from(parseSeed(` ${SEED_HEX}\n`, 'LNSWAP_PROVIDER_BITCOIN_SEED')).toString('hex'), SEED_HEX);
    for (const bad of ['zz'.repeat(32), 'ab'.repeat(15), 'ab'.repeat(65), `${SEED_HEX}0`]) {
      assert.throws(
        () => parseSeed(bad, 'LNSWAP_PROVIDER_BITCOIN_SEED'),
        (error: Error) => {
          assert.match(error.message, /^LNSWAP_PROVIDER_BITCOIN_SEED: the Bitcoin seed must be/);
          assert.ok(!error.message.includes(bad));
          return true;
        },
      );
    }
  });
});

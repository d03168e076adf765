import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, createHash } from 'node:crypto';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { address, networks } from 'bitcoinjs-lib';
import {
  bitcoinJsNetwork,
  buildHtlcRedeemScript,
  htlcPayToAddresses,
  isBitcoinAddress,
  outputScriptOfAddress,
  parseHtlcRedeemScript,
  refundPublicKeyHashOfAddress,
  type HtlcScriptTerms,
} from '../../src/domain/bitcoin.js';

/** The secp256k1 generator point, compressed: a key everyone can check is on the curve. */
const GENERATOR_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';

const TERMS: HtlcScriptTerms = {
  paymentHash: 'c3d4e83f646fa79a393d75277b1d858db1d1f7ab7137dcb7835db2ecd518e1c9',
  claimPublicKey: '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad',
  refundPublicKeyHash: '751e76e8199196d454941c45d1b3a323f1433bd6',
  refundableAtBlockHeight: 612_183,
};

/** The template spelled out opcode by opcode (612183 = 0x095757, pushed little-endian). */
const TERMS_SCRIPT = [
  'a8', // OP_SHA256
  `20${TERMS.paymentHash}`,
  '87', // OP_EQUAL
  '63', // OP_IF
  `21${TERMS.claimPublicKey}`,
  '67', // OP_ELSE
  '03575709',
  'b1', // OP_CHECKLOCKTIMEVERIFY
  '75', // OP_DROP
  '76', // OP_DUP
  'a9', // OP_HASH160
  `14${TERMS.refundPublicKeyHash}`,
  '88', // OP_EQUALVERIFY
  '68', // OP_ENDIF
  'ac', // OP_CHECKSIG
].join('');

function hash(algorithm: string, data: Buffer): Buffer {
  return createHash(algorithm).update(data).digest();
}

const hash160 = (data: Buffer): Buffer => hash('ripemd160', hash('sha256', data));

describe('bitcoinJsNetwork', () => {
  test('maps simnet to regtest', () => {
    assert.equal(bitcoinJsNetwork('mainnet'), networks.bitcoin);
    assert.equal(bitcoinJsNetwork('testnet'), networks.testnet);
    assert.equal(bitcoinJsNetwork('simnet'), networks.regtest);
  });
});

describe('isBitcoinAddress', () => {
  const mainnet = [
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
  ];
  const testnet = [
    'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
  ];

  test('accepts the address kinds of each network', () => {
    for (const candidate of mainnet) assert.ok(isBitcoinAddress(candidate, 'mainnet'), candidate);
    for (const candidate of testnet) assert.ok(isBitcoinAddress(candidate, 'testnet'), candidate);
    assert.ok(isBitcoinAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'simnet'));
  });

  test('refuses addresses of another network', () => {
    for (const candidate of mainnet) {
      assert.equal(isBitcoinAddress(candidate, 'testnet'), false, candidate);
      assert.equal(isBitcoinAddress(candidate, 'simnet'), false, candidate);
    }
    assert.equal(isBitcoinAddress('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'simnet'), false);
    assert.equal(isBitcoinAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'testnet'), false);
  });

  test('refuses malformed addresses', () => {
    for (const candidate of [
      '',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', // base58 checksum
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', // bech32 checksum
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', // v0 program in bech32m
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // v1 program in bech32
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', // v1 of 40 bytes
      'Bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // mixed case
      ' 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    ]) {
      assert.equal(isBitcoinAddress(candidate, 'mainnet'), false, candidate);
    }
    assert.equal(isBitcoinAddress(undefined as unknown as string, 'mainnet'), false);
  });
});

describe('outputScriptOfAddress', () => {
  const htlc = buildHtlcRedeemScript(TERMS);
  const networksInUse = ['mainnet', 'testnet', 'simnet'] as const;
  const addresses = [
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
    'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
    ...networksInUse.flatMap((network) => Object.values(htlcPayToAddresses(htlc, network))),
  ];

  test("is bitcoinjs' output script for every kind an HTLC and its payers use, on every network", () => {
    for (const network of networksInUse) {
      for (const candidate of addresses) {
        let expected: string | undefined;
        try {
          expected = Buffer.from(address.toOutputScript(candidate, bitcoinJsNetwork(network))).toString('hex');
        } catch {
          expected = undefined;
        }
        assert.equal(outputScriptOfAddress(candidate, network), expected, `${candidate} on ${network}`);
      }
    }
  });

  test('has none for a malformed address, or a taproot one', () => {
    for (const candidate of [
      '',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    ]) {
      assert.equal(outputScriptOfAddress(candidate, 'mainnet'), undefined, candidate);
    }
  });
});

describe('refundPublicKeyHashOfAddress', () => {
  test('reads the key hash of P2PKH and P2WPKH addresses', () => {
    // BOLT11's fallback example and BIP-173's P2WPKH example.
    assert.equal(
      refundPublicKeyHashOfAddress('1RustyRX2oai4EYYDpQGWvEL62BBGqN9T', 'mainnet'),
      '04b61f7dc1ea0dc99424464cc4064dc564d91e89',
    );
    assert.equal(
      refundPublicKeyHashOfAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet'),
      '751e76e8199196d454941c45d1b3a323f1433bd6',
    );
    assert.equal(
      refundPublicKeyHashOfAddress('mk2QpYatsKicvFVuTAQLBryyccRXMUaGHP', 'testnet'),
      '3172b5654f6683c8fb146959d347ce303cae4ca7',
    );
  });

  test('has none for script, taproot or foreign addresses', () => {
    for (const candidate of [
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      'mk2QpYatsKicvFVuTAQLBryyccRXMUaGHP',
      'garbage',
    ]) {
      assert.equal(refundPublicKeyHashOfAddress(candidate, 'mainnet'), undefined, candidate);
    }
  });
});

describe('buildHtlcRedeemScript', () => {
  test('writes exactly the submarine-swap template', () => {
    assert.equal(buildHtlcRedeemScript(TERMS), TERMS_SCRIPT);
  });

  test('pushes small heights as OP_1..OP_16, like every minimal encoder', () => {
    assert.equal(
      buildHtlcRedeemScript({ ...TERMS, refundableAtBlockHeight: 16 }),
      TERMS_SCRIPT.replace('03575709', '60'),
    );
    assert.equal(
      buildHtlcRedeemScript({ ...TERMS, refundableAtBlockHeight: 17 }),
      TERMS_SCRIPT.replace('03575709', '0111'),
    );
  });

  test('refuses terms that would make a broken or unspendable script', () => {
    for (const bad of [
      { paymentHash: TERMS.paymentHash.slice(2) },
      { paymentHash: `${TERMS.paymentHash.slice(2)}zz` },
      { claimPublicKey: `04${TERMS.claimPublicKey.slice(2)}` },
      { claimPublicKey: `02${'00'.repeat(32)}` },
      { claimPublicKey: TERMS.claimPublicKey.slice(2) },
      { refundPublicKeyHash: `${TERMS.refundPublicKeyHash}00` },
      { refundableAtBlockHeight: 0 },
      { refundableAtBlockHeight: -1 },
      { refundableAtBlockHeight: 1.5 },
      { refundableAtBlockHeight: 500_000_000 },
    ]) {
      assert.throws(() => buildHtlcRedeemScript({ ...TERMS, ...bad }), JSON.stringify(bad));
    }
  });
});

describe('parseHtlcRedeemScript', () => {
  test('reads the terms back', () => {
    assert.deepEqual(parseHtlcRedeemScript(TERMS_SCRIPT), TERMS);
    assert.deepEqual(parseHtlcRedeemScript(TERMS_SCRIPT.toUpperCase()), TERMS);
  });

  test('round-trips any valid terms', () => {
    const privateKeys = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .filter((bytes) => bytes.some((byte) => byte !== 0) && bytes[0] !== 0xff);
    const publicKeys = privateKeys.map((privateKey) => {
      const ecdh = createECDH('secp256k1');
      ecdh.setPrivateKey(Buffer.from(privateKey));
      return ecdh.getPublicKey('hex', 'compressed');
    });
    const hexBytes = (length: number) =>
      fc.uint8Array({ minLength: length, maxLength: length }).map((bytes) => Buffer.from(bytes).toString('hex'));
    fc.assert(
      fc.property(
        hexBytes(32),
        publicKeys,
        hexBytes(20),
        fc.integer({ min: 1, max: 499_999_999 }),
        (paymentHash, claimPublicKey, refundPublicKeyHash, refundableAtBlockHeight) => {
          const terms = { paymentHash, claimPublicKey, refundPublicKeyHash, refundableAtBlockHeight };
          assert.deepEqual(parseHtlcRedeemScript(buildHtlcRedeemScript(terms)), terms);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: 200 },
    );
  });

  const nearMisses: Record<string, string> = {
    'height pushed with OP_PUSHDATA1': TERMS_SCRIPT.replace('03575709', '4c03575709'),
    'height with a redundant zero byte': TERMS_SCRIPT.replace('03575709', '0457570900'),
    'small height pushed as data instead of OP_16': TERMS_SCRIPT.replace('03575709', '0110'),
    'height zero': TERMS_SCRIPT.replace('03575709', '00'),
    'height that is a timestamp': TERMS_SCRIPT.replace('03575709', '040065cd1d'),
    'negative height': TERMS_SCRIPT.replace('03575709', '03575789'),
    'OP_HASH160 instead of OP_SHA256': `a9${TERMS_SCRIPT.slice(2)}`,
    'OP_CHECKSEQUENCEVERIFY instead of OP_CHECKLOCKTIMEVERIFY': TERMS_SCRIPT.replace('03575709b1', '03575709b2'),
    'OP_DROP missing': TERMS_SCRIPT.replace('b17576', 'b176'),
    'trailing opcode': `${TERMS_SCRIPT}75`,
    'leading opcode': `61${TERMS_SCRIPT}`,
    'uncompressed claim key': TERMS_SCRIPT.replace(
      `21${TERMS.claimPublicKey}`,
      `41${'04'}${GENERATOR_KEY.slice(2)}483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8`,
    ),
    'claim key not on the curve': TERMS_SCRIPT.replace(TERMS.claimPublicKey, `02${'00'.repeat(32)}`),
    '19-byte refund hash': TERMS_SCRIPT.replace(
      `14${TERMS.refundPublicKeyHash}`,
      `13${TERMS.refundPublicKeyHash.slice(2)}`,
    ),
    '31-byte payment hash': TERMS_SCRIPT.replace(`20${TERMS.paymentHash}`, `1f${TERMS.paymentHash.slice(2)}`),
    'push running past the end': TERMS_SCRIPT.slice(0, -4),
    'odd-length hex': TERMS_SCRIPT.slice(0, -1),
    'not hex': TERMS_SCRIPT.replace('a8', 'zz'),
    empty: '',
  };
  for (const [name, script] of Object.entries(nearMisses)) {
    test(`refuses a script with ${name}`, () => {
      assert.equal(parseHtlcRedeemScript(script), undefined);
    });
  }

  test('never throws on arbitrary hex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        assert.equal(parseHtlcRedeemScript(Buffer.from(bytes).toString('hex')), undefined);
      }),
      { seed: PROPERTY_SEED },
    );
  });
});

describe('htlcPayToAddresses', () => {
  test('matches BIP-173 for P2WSH of a known script', () => {
    const payToGenerator = `21${GENERATOR_KEY}ac`;
    assert.equal(
      htlcPayToAddresses(payToGenerator, 'mainnet').p2wsh,
      'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    );
    assert.equal(
      htlcPayToAddresses(payToGenerator, 'testnet').p2wsh,
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    );
  });

  test('commits each address to the redeem script', () => {
    const redeemScript = Buffer.from(TERMS_SCRIPT, 'hex');
    const witnessProgram = Buffer.concat([Buffer.from([0x00, 0x20]), hash('sha256', redeemScript)]);
    for (const [network, bitcoinNetwork] of [
      ['mainnet', networks.bitcoin],
      ['testnet', networks.testnet],
      ['simnet', networks.regtest],
    ] as const) {
      const addresses = htlcPayToAddresses(TERMS_SCRIPT, network);
      const p2sh = address.fromBase58Check(addresses.p2sh);
      assert.equal(p2sh.version, bitcoinNetwork.scriptHash);
      assert.deepEqual(Buffer.from(p2sh.hash), hash160(redeemScript));
      const p2wsh = address.fromBech32(addresses.p2wsh);
      assert.equal(p2wsh.prefix, bitcoinNetwork.bech32);
      assert.equal(p2wsh.version, 0);
      assert.deepEqual(Buffer.from(p2wsh.data), hash('sha256', redeemScript));
      const nested = address.fromBase58Check(addresses.p2shP2wsh);
      assert.equal(nested.version, bitcoinNetwork.scriptHash);
      assert.deepEqual(Buffer.from(nested.hash), hash160(witnessProgram));
      for (const payTo of Object.values(addresses)) assert.ok(isBitcoinAddress(payTo, network), payTo);
    }
  });

  test('refuses a script that is not hex', () => {
    assert.throws(() => htlcPayToAddresses('', 'mainnet'));
    assert.throws(() => htlcPayToAddresses('abc', 'mainnet'));
    assert.throws(() => htlcPayToAddresses('zz', 'mainnet'));
  });
});

/**
 * The hand-written address decoders against bitcoinjs, which they replaced on the import's hot
 * path: over real addresses of every kind and network, re-encodings with other versions, lengths
 * and checksums, and damaged copies, both must accept the same addresses and find the same key hash.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bech32, bech32m } from '@scure/base';
import { address, networks, payments } from 'bitcoinjs-lib';
import bs58check from 'bs58check';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { isBitcoinAddress, refundPublicKeyHashOfAddress } from '../../src/domain/bitcoin.js';
import type { Network } from '../../src/domain/markets.js';

const NETWORKS: Record<Network, typeof networks.bitcoin> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  simnet: networks.regtest,
};

/** isBitcoinAddress and refundPublicKeyHashOfAddress as they were, on bitcoinjs. */
function referenceSegwit(text: string) {
  try {
    return address.fromBech32(text);
  } catch {
    return undefined;
  }
}

function referenceOutputScript(text: string, network: Network): Uint8Array | undefined {
  const segwit = referenceSegwit(text);
  if (segwit !== undefined && segwit.version !== 0) return undefined;
  try {
    return address.toOutputScript(text, NETWORKS[network]);
  } catch {
    return undefined;
  }
}

function referenceIsAddress(text: string, network: Network, isXOnly: (key: Uint8Array) => boolean): boolean {
  const segwit = referenceSegwit(text);
  if (segwit?.version === 1) {
    return segwit.prefix === NETWORKS[network].bech32 && segwit.data.length === 32 && isXOnly(segwit.data);
  }
  return referenceOutputScript(text, network) !== undefined;
}

function referenceRefundHash(text: string, network: Network): string | undefined {
  const output = referenceOutputScript(text, network);
  if (output === undefined) return undefined;
  for (const payment of [payments.p2pkh, payments.p2wpkh]) {
    try {
      const hash = payment({ output }).hash;
      if (hash !== undefined) return Buffer.from(hash).toString('hex');
    } catch {
      // Not this kind.
    }
  }
  return undefined;
}

/** Whether the new code took a 32-byte v1 program as a key: the one input only the curve can judge. */
function xOnlyVerdictOf(program: Uint8Array, network: Network): boolean {
  return isBitcoinAddress(bech32m.encode(NETWORKS[network].bech32, [1, ...bech32m.toWords(program)]), network);
}

const network = fc.constantFrom<Network>('mainnet', 'testnet', 'simnet');
const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });

const realAddress = fc
  .tuple(network, fc.constantFrom('p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'), bytes(32, 32))
  .map(([net, kind, seed]) => {
    const bitcoinNetwork = NETWORKS[net];
    const hash20 = Buffer.from(seed.subarray(0, 20));
    switch (kind) {
      case 'p2pkh':
        return payments.p2pkh({ hash: hash20, network: bitcoinNetwork }).address!;
      case 'p2sh':
        return payments.p2sh({ hash: hash20, network: bitcoinNetwork }).address!;
      case 'p2wpkh':
        return payments.p2wpkh({ hash: hash20, network: bitcoinNetwork }).address!;
      case 'p2wsh':
        return payments.p2wsh({ hash: Buffer.from(seed), network: bitcoinNetwork }).address!;
      default:
        return bech32m.encode(bitcoinNetwork.bech32, [1, ...bech32m.toWords(seed)]);
    }
  });

const otherSegwit = fc
  .tuple(fc.constantFrom('bc', 'tb', 'bcrt', 'ltc'), fc.integer({ min: 0, max: 16 }), bytes(0, 42), fc.boolean())
  .map(([prefix, version, program, bech32mChecksum]) => {
    const encoder = bech32mChecksum ? bech32m : bech32;
    return encoder.encode(prefix, [version, ...encoder.toWords(program)], 200);
  });

/** Programs as raw words, so their padding bits need not be zero. */
const rawWordsSegwit = fc
  .tuple(
    fc.constantFrom('bc', 'tb'),
    fc.integer({ min: 0, max: 1 }),
    fc.array(fc.integer({ min: 0, max: 31 }), { minLength: 30, maxLength: 66 }),
  )
  .map(([prefix, version, words]) => (version === 0 ? bech32 : bech32m).encode(prefix, [version, ...words], 200));

const otherBase58 = fc
  .tuple(fc.constantFrom(0x00, 0x05, 0x6f, 0xc4, 0x30, 0x01), bytes(18, 22))
  .map(([version, hash]) => bs58check.encode(Uint8Array.from([version, ...hash])));

/** Programs of the right length followed by a zero word: padding of 5 bits or more, which BIP-173 forbids. */
const overPaddedSegwit = fc
  .tuple(fc.constantFrom('bc', 'tb'), fc.integer({ min: 0, max: 1 }), fc.constantFrom(20, 32), bytes(32, 32))
  .map(([prefix, version, length, program]) => {
    const encoder = version === 0 ? bech32 : bech32m;
    return encoder.encode(prefix, [version, ...encoder.toWords(program.subarray(0, length)), 0], 200);
  });

/** Zero bytes in front, each spelled as a leading '1', and copies with a '1' too many or too few. */
const leadingZeros = fc
  .tuple(
    fc.constantFrom(0x00, 0x05, 0x6f),
    fc.integer({ min: 0, max: 4 }),
    bytes(16, 20),
    fc.constantFrom('as is', 'one more', 'one less'),
  )
  .map(([version, zeros, rest, edit]) => {
    const text = bs58check.encode(Uint8Array.from([version, ...Array<number>(zeros).fill(0), ...rest]));
    if (edit === 'one more') return `1${text}`;
    return edit === 'one less' && text.startsWith('1') ? text.slice(1) : text;
  });

const damaged = fc
  .tuple(realAddress, fc.nat(), fc.constantFrom(...'qpzry9x8gf2tvdw0s3jn54khce6mua7l1ABCDEFGHJKLMNPQRSTUVWXYZ0OIl '))
  .map(([text, position, replacement]) => {
    const index = position % text.length;
    return text.slice(0, index) + replacement + text.slice(index + 1);
  });

const caseChanged = realAddress.map((text) =>
  text.startsWith('bc') || text.startsWith('tb') ? text.toUpperCase() : text.toLowerCase(),
);
const mixedCase = realAddress.map((text) => text.slice(0, 5) + text.slice(5).toUpperCase());
const truncated = fc.tuple(realAddress, fc.nat()).map(([text, cut]) => text.slice(0, cut % text.length));

const candidate = fc.oneof(
  realAddress,
  otherSegwit,
  rawWordsSegwit,
  overPaddedSegwit,
  otherBase58,
  leadingZeros,
  damaged,
  caseChanged,
  mixedCase,
  truncated,
  fc.string(),
);

describe('hand-written Bitcoin address decoding', () => {
  test('accepts exactly the addresses bitcoinjs accepted, with the same refund key hashes', () => {
    fc.assert(
      fc.property(candidate, network, (text, net) => {
        const isXOnly = (program: Uint8Array) => xOnlyVerdictOf(program, net);
        assert.equal(isBitcoinAddress(text, net), referenceIsAddress(text, net, isXOnly), `${text} on ${net}`);
        assert.equal(refundPublicKeyHashOfAddress(text, net), referenceRefundHash(text, net), `${text} on ${net}`);
      }),
      { seed: PROPERTY_SEED, numRuns: 5000 },
    );
  });

  test('BIP-173 and BIP-350 examples', () => {
    assert.equal(isBitcoinAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet'), true);
    assert.equal(isBitcoinAddress('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet'), true);
    assert.equal(isBitcoinAddress('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'mainnet'), false);
    // bech32 checksum on a version 1 program, and bech32m on version 0: both refused (BIP-350).
    assert.equal(
      isBitcoinAddress('bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx', 'mainnet'),
      false,
    );
    assert.equal(isBitcoinAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'mainnet'), false);
    assert.equal(isBitcoinAddress('bc1qr508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet'), false, 'bad checksum');
    assert.equal(isBitcoinAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'mainnet'), true);
    assert.equal(isBitcoinAddress('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'mainnet'), true);
    assert.equal(isBitcoinAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'mainnet'), false, 'bad checksum');
  });
});

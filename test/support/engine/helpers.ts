import { createECDH, createHash } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { bitcoinJsNetwork } from '../../../src/domain/bitcoin.js';
import type { Network } from '../../../src/domain/markets.js';
import { resolveEngineOptions, type EngineOptions } from '../../../src/engine/operations/options.js';
import { hex32 } from '../fixtures.js';

/** A private key derived from a label; its public key claims HTLCs in the tests. */
export function privateKeyFor(label: string): string {
  return hex32(`private key:${label}`);
}

function publicKeyHashOf(label: string): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKeyFor(label), 'hex'));
  const publicKey = ecdh.getPublicKey(null, 'compressed');
  return createHash('ripemd160').update(createHash('sha256').update(publicKey).digest()).digest();
}

/** A P2WPKH address a user could refund to. */
export function refundAddressFor(label: string, network: Network = 'mainnet'): string {
  const address = payments.p2wpkh({ hash: publicKeyHashOf(label), network: bitcoinJsNetwork(network) }).address;
  if (address === undefined) throw new Error('bitcoinjs produced no address');
  return address;
}

/** A legacy P2PKH address of the same kind of key. */
export function legacyRefundAddressFor(label: string, network: Network = 'mainnet'): string {
  const address = payments.p2pkh({ hash: publicKeyHashOf(label), network: bitcoinJsNetwork(network) }).address;
  if (address === undefined) throw new Error('bitcoinjs produced no address');
  return address;
}

/** A P2SH address: valid, but no key hash an HTLC refund path could pay. */
export function scriptHashAddressFor(label: string, network: Network = 'mainnet'): string {
  const address = payments.p2sh({ hash: publicKeyHashOf(label), network: bitcoinJsNetwork(network) }).address;
  if (address === undefined) throw new Error('bitcoinjs produced no address');
  return address;
}

/** Engine options for tests: short waits, bounds the test quotes are built within. */
export function testEngineOptions(overrides: Partial<EngineOptions> = {}): EngineOptions {
  return resolveEngineOptions({
    quoteDeadlineMs: 400,
    minFundWindowMs: 60_000,
    maxFundWindowMs: 3_600_000,
    minTimelockBlocks: 24,
    maxTimelockBlocks: 288,
    ethereumRefundDelayBlocks: 5_760,
    sweepIntervalMs: 50,
    chainViewPollIntervalMs: 50,
    presenceIntervalMs: 60_000,
    ...overrides,
  });
}

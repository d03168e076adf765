import { ECDH } from 'node:crypto';
import { networks, payments, type Network as BitcoinJsNetwork } from 'bitcoinjs-lib';
import { decodeBase58Address, decodeSegwitAddress } from './bitcoin-address.js';
import { compileHtlcScript, LOCKTIME_THRESHOLD, readHtlcScript } from './htlc-script.js';
import { isHexBytes, isHexOfLength } from './hex.js';
import type { Network } from './markets.js';

const BITCOINJS_NETWORKS: Readonly<Record<Network, BitcoinJsNetwork>> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  simnet: networks.regtest,
};

export function bitcoinJsNetwork(network: Network): BitcoinJsNetwork {
  return BITCOINJS_NETWORKS[network];
}

export function isBitcoinAddress(bitcoinAddress: string, network: Network): boolean {
  const { bech32, pubKeyHash, scriptHash } = bitcoinJsNetwork(network);
  const segwit = decodeSegwitAddress(bitcoinAddress);
  if (segwit !== undefined) {
    if (segwit.prefix !== bech32) return false;
    const { version, program } = segwit;
    if (version === 0) return program.length === 20 || program.length === 32;
    // Later witness versions are not in use.
    return version === 1 && program.length === 32 && isXOnlyPublicKey(program);
  }
  const legacy = decodeBase58Address(bitcoinAddress);
  return legacy !== undefined && (legacy.version === pubKeyHash || legacy.version === scriptHash);
}

/** The 20-byte key hash of a P2PKH or P2WPKH address, hex: the only kinds an HTLC refund path can pay. */
export function refundPublicKeyHashOfAddress(bitcoinAddress: string, network: Network): string | undefined {
  const { bech32, pubKeyHash } = bitcoinJsNetwork(network);
  const segwit = decodeSegwitAddress(bitcoinAddress);
  if (segwit !== undefined) {
    const isP2wpkh = segwit.prefix === bech32 && segwit.version === 0 && segwit.program.length === 20;
    return isP2wpkh ? toHex(segwit.program) : undefined;
  }
  const legacy = decodeBase58Address(bitcoinAddress);
  return legacy?.version === pubKeyHash ? toHex(legacy.hash) : undefined;
}

/**
 * The output script (lowercase hex) an address of `network` pays, as bitcoinjs' `toOutputScript` answers it for
 * the kinds an HTLC or a wallet paying one uses (P2PKH, P2SH, P2WPKH, P2WSH), through the hand decoders: bitcoinjs takes some 200 µs
 * an address, which the chain watcher would spend on every watched order each pass. Undefined for an address
 * of another network or of another kind (taproot: no HTLC is one).
 */
export function outputScriptOfAddress(bitcoinAddress: string, network: Network): string | undefined {
  const { bech32, pubKeyHash, scriptHash } = bitcoinJsNetwork(network);
  const segwit = decodeSegwitAddress(bitcoinAddress);
  if (segwit !== undefined) {
    if (segwit.prefix !== bech32) return undefined;
    const { version, program } = segwit;
    if (version !== 0 || (program.length !== 20 && program.length !== 32)) return undefined;
    return `00${program.length.toString(16)}${toHex(program)}`;
  }
  const legacy = decodeBase58Address(bitcoinAddress);
  if (legacy?.version === pubKeyHash) return `76a914${toHex(legacy.hash)}88ac`;
  if (legacy?.version === scriptHash) return `a914${toHex(legacy.hash)}87`;
  return undefined;
}

export interface HtlcScriptTerms {
  /** 64 hex. */
  paymentHash: string;
  /** 33-byte compressed secp256k1 key, hex. */
  claimPublicKey: string;
  /** 40 hex. */
  refundPublicKeyHash: string;
  refundableAtBlockHeight: number;
}

/**
 * The submarine-swap HTLC (the template of src/domain/htlc-script.ts): the claimer spends with the preimage and a
 * signature; after the timelock the refunder spends with a signature from the key behind the refund hash.
 */
export function buildHtlcRedeemScript(terms: HtlcScriptTerms): string {
  const paymentHash = hexBytes(terms.paymentHash, 32, 'paymentHash');
  const claimPublicKey = hexBytes(terms.claimPublicKey, 33, 'claimPublicKey');
  if (!isCompressedPublicKey(claimPublicKey)) throw new Error('claimPublicKey is not a compressed secp256k1 key');
  const refundPublicKeyHash = hexBytes(terms.refundPublicKeyHash, 20, 'refundPublicKeyHash');
  const height = terms.refundableAtBlockHeight;
  if (!Number.isInteger(height) || height < 1 || height >= LOCKTIME_THRESHOLD) {
    throw new Error('refundableAtBlockHeight must be a block height (1 to 499999999)');
  }
  return toHex(
    compileHtlcScript({ paymentHash, claimPublicKey, refundPublicKeyHash, refundableAtBlockHeight: height }),
  );
}

/**
 * Reads the terms out of a redeem script that follows the template exactly (byte for byte, as `readHtlcScript`
 * reads it) with a claim key on the curve. Never throws.
 */
export function parseHtlcRedeemScript(hex: string): HtlcScriptTerms | undefined {
  if (typeof hex !== 'string' || !isHexBytes(hex)) return undefined;
  const parts = readHtlcScript(Buffer.from(hex, 'hex'));
  if (parts === undefined || !isCompressedPublicKey(parts.claimPublicKey)) return undefined;
  return {
    paymentHash: toHex(parts.paymentHash),
    claimPublicKey: toHex(parts.claimPublicKey),
    refundPublicKeyHash: toHex(parts.refundPublicKeyHash),
    refundableAtBlockHeight: parts.refundableAtBlockHeight,
  };
}

/** Where a maker may ask to be funded: legacy P2SH, native P2WSH, or P2WSH nested in P2SH. */
export function htlcPayToAddresses(
  redeemScriptHex: string,
  network: Network,
): { p2sh: string; p2wsh: string; p2shP2wsh: string } {
  if (typeof redeemScriptHex !== 'string' || !isHexBytes(redeemScriptHex)) {
    throw new Error('redeem script must be non-empty hex');
  }
  const bitcoinNetwork = bitcoinJsNetwork(network);
  const redeem = { output: Buffer.from(redeemScriptHex, 'hex'), network: bitcoinNetwork };
  const p2wsh = payments.p2wsh({ redeem, network: bitcoinNetwork });
  const addresses = {
    p2sh: payments.p2sh({ redeem, network: bitcoinNetwork }).address,
    p2wsh: p2wsh.address,
    p2shP2wsh: payments.p2sh({ redeem: p2wsh, network: bitcoinNetwork }).address,
  };
  if (!addresses.p2sh || !addresses.p2wsh || !addresses.p2shP2wsh) throw new Error('bitcoinjs produced no address');
  return { p2sh: addresses.p2sh, p2wsh: addresses.p2wsh, p2shP2wsh: addresses.p2shP2wsh };
}

function hexBytes(hex: string, length: number, what: string): Uint8Array {
  if (typeof hex !== 'string' || !isHexOfLength(hex, length * 2)) {
    throw new Error(`${what} must be ${length} bytes of hex`);
  }
  return Buffer.from(hex, 'hex');
}

/** A taproot output key is the x coordinate of a point; either parity makes it a valid point. */
function isXOnlyPublicKey(key: Uint8Array): boolean {
  return isCompressedPublicKey(Uint8Array.from([0x02, ...key]));
}

function isCompressedPublicKey(key: Uint8Array): boolean {
  if (key[0] !== 0x02 && key[0] !== 0x03) return false;
  try {
    ECDH.convertKey(Buffer.from(key), 'secp256k1');
    return true;
  } catch {
    return false;
  }
}

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

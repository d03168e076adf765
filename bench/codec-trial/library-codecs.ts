/**
 * What each hand-written codec would be replaced by: the maintained library doing the same job, with
 * only the glue the callers need to get the same answers (the rules the project adds on top of a
 * decoder stay the project's either way).
 */
import { hash } from 'node:crypto';
import { bech32, bech32m } from '@scure/base';
import { address } from 'bitcoinjs-lib';
import { decode as decodeBolt11 } from 'light-bolt11-decoder';
import type { ReadInvoice } from '../../src/domain/bolt11-reader.js';
import type { Network } from '../../src/domain/markets.js';

const NETWORK_BY_PREFIX: Readonly<Record<string, Network>> = {
  bc: 'mainnet',
  tb: 'testnet',
  bcrt: 'simnet',
  sb: 'simnet',
};
const SECP256K1_HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const DEFAULT_EXPIRY_SECONDS = 3600;
const MAX_DATE_SECONDS = 8.64e12;
const SIGNATURE_WORDS = 104;

interface Bolt11Section {
  readonly name: string;
  readonly letters: string;
  readonly value?: unknown;
}

/**
 * BOLT11 signs the data words packed into bytes, the last byte padded with zero bits; bech32.fromWords
 * refuses a partial byte, so zero words are added until the bits left over are fewer than five.
 */
function zeroPadded(words: number[]): number[] {
  const leftoverBits = (words.length * 5) % 8;
  if (leftoverBits > 0) words.push(0);
  if (leftoverBits > 0 && leftoverBits <= 2) words.push(0);
  return words;
}

/** `readInvoice` through light-bolt11-decoder, the signed bytes through @scure/base's bech32. */
export function readInvoiceWithLibrary(invoice: string): ReadInvoice | undefined {
  let sections: readonly Bolt11Section[];
  try {
    sections = (decodeBolt11(invoice) as { sections: Bolt11Section[] }).sections;
  } catch {
    return undefined;
  }
  const section = (name: string) => sections.find((candidate) => candidate.name === name);
  const network = NETWORK_BY_PREFIX[section('coin_network')?.letters ?? ''];
  const paymentHash = section('payment_hash')?.value;
  if (network === undefined || typeof paymentHash !== 'string' || paymentHash.length !== 64) return undefined;
  const amount = section('amount')?.value as string | undefined;
  const timestamp = section('timestamp')!.value as number;
  const expirySeconds = section('expiry')?.value as number | undefined;
  if (expirySeconds !== undefined && timestamp + expirySeconds > MAX_DATE_SECONDS) return undefined;
  const payee = section('payee')?.value as string | undefined;
  const signatureHex = section('signature')!.value as string;
  const recoveryId = parseInt(signatureHex.slice(128), 16);
  if (recoveryId > 3) return undefined;
  const lowS = BigInt(`0x${signatureHex.slice(64, 128)}`) <= SECP256K1_HALF_ORDER;
  if (payee === undefined ? !lowS : payee.length !== 66) return undefined;
  // The decoder does not hand out the words the signature covers: the text is decoded once more for them.
  const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, Number.MAX_SAFE_INTEGER);
  const signed = Buffer.concat([
    Buffer.from(prefix, 'utf8'),
    bech32.fromWords(zeroPadded(words.slice(0, -SIGNATURE_WORDS))),
  ]);
  return {
    network,
    paymentHash,
    ...(amount === undefined ? {} : { amountMillisatoshis: BigInt(amount) }),
    timestampMs: timestamp * 1000,
    expiresAtMs: (timestamp + (expirySeconds ?? DEFAULT_EXPIRY_SECONDS)) * 1000,
    ...(payee === undefined ? {} : { payee }),
    signingHash: hash('sha256', signed, 'hex'),
    signature: signatureHex.slice(0, 128),
    recoveryId,
  };
}

/** `splitBech32`'s job through @scure/base: invoices have no length limit; addresses are bech32 or bech32m. */
export function splitBech32WithLibrary(text: string): { prefix: string; words: number[] } | undefined {
  const isInvoice = text.length > 90;
  if (isInvoice) return bech32.decodeUnsafe(text, Number.MAX_SAFE_INTEGER) || undefined;
  return bech32.decodeUnsafe(text) || bech32m.decodeUnsafe(text) || undefined;
}

/** `decodeSegwitAddress` and `decodeBase58Address` through bitcoinjs-lib, in the order isBitcoinAddress tries them. */
export function decodeAddressWithLibrary(
  text: string,
):
  | { kind: 'segwit'; prefix: string; version: number; program: Uint8Array }
  | { kind: 'base58'; version: number; hash: Uint8Array }
  | undefined {
  try {
    const { prefix, version, data } = address.fromBech32(text);
    return { kind: 'segwit', prefix, version, program: data };
  } catch {
    // Not segwit: base58 is tried next, as the hand-written path does.
  }
  try {
    const { version, hash: keyHash } = address.fromBase58Check(text);
    return { kind: 'base58', version, hash: keyHash };
  } catch {
    return undefined;
  }
}

const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What `parseIsoTimestamp` does, with Date: a shape check, Date.parse, and the round trip that refuses rollovers. */
export function parseTimestampWithLibrary(text: string): number | undefined {
  if (!ISO_TIMESTAMP_PATTERN.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) || new Date(ms).toISOString() !== text ? undefined : ms;
}

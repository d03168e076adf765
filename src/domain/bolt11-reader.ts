/**
 * BOLT11 invoices read in two steps: parsing, cheap and synchronous, and the signature check,
 * which costs more than everything else an import does with an order and so can be run on
 * another thread. Together they accept exactly the invoices the `bolt11` package's decoder (with
 * the project's own checks on top) accepted: the tests hold the two side by side. Kept over
 * light-bolt11-decoder by the codec trial: about 47 s of a million-order import (BENCHMARKS.md).
 */
import { hash } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { BECH32_CHECKSUM, splitBech32 } from './bech32.js';
import type { Network } from './markets.js';

/** What parsing found: plain data, so it can be posted to a worker thread. */
export interface ReadInvoice {
  readonly network: Network;
  /** 64 lowercase hex. */
  readonly paymentHash: string;
  /** Absent when the invoice leaves the amount to the payer. */
  readonly amountMillisatoshis?: bigint;
  readonly timestampMs: number;
  readonly expiresAtMs: number;
  /** The `n` field: the payee's compressed key, 66 hex, when the invoice names it. */
  readonly payee?: string;
  /** SHA-256 of the human-readable part and the data before the signature, hex. */
  readonly signingHash: string;
  /** r and s, 128 hex. */
  readonly signature: string;
  readonly recoveryId: number;
}

/** What checking an invoice's signature takes of it. */
export type SignedInvoice = Pick<ReadInvoice, 'signingHash' | 'signature' | 'recoveryId' | 'payee'>;

/**
 * Longer strings are refused before decoding. lnd draws the line at the same place: the most a
 * single QR code holds.
 */
export const MAX_INVOICE_LENGTH = 7089;

const NETWORK_BY_PREFIX: Readonly<Record<string, Network>> = {
  bc: 'mainnet',
  tb: 'testnet',
  bcrt: 'simnet',
  sb: 'simnet',
};
/** The `bolt11` package's own prefixes, the ones it accepts: mainnet, testnet, regtest and simnet. */
const KNOWN_PREFIXES: ReadonlySet<string> = new Set(Object.keys(NETWORK_BY_PREFIX));

/** The signature's words pack into exactly 65 bytes: r, s, then the recovery id. */
const SIGNATURE_WORDS = 104;
const SIGNATURE_BYTES = 65;
const S_START = 32;
const RECOVERY_ID_AT = 64;
const TIMESTAMP_WORDS = 7;
/** BOLT11: "If the x field is not provided, the expiry is 3600 seconds." */
const DEFAULT_EXPIRY_SECONDS = 3600;
const MAX_MILLISATOSHIS = 2_100_000_000_000_000_000n;
const MILLISATOSHIS_PER_BITCOIN = 100_000_000_000n;
const DIVISORS: Readonly<Record<string, bigint>> = {
  m: 1_000n,
  u: 1_000_000n,
  n: 1_000_000_000n,
  p: 1_000_000_000_000n,
};
/** Half the order of secp256k1, big-endian: the largest s of a low-S signature. */
const SECP256K1_HALF_ORDER = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');
/** Latest time a JavaScript Date can hold, in seconds. */
const MAX_DATE_SECONDS = 8.64e12;

const TAG_PAYMENT_HASH = 1;
const TAG_EXPIRY = 6;
const TAG_FALLBACK_ADDRESS = 9;
const TAG_PAYEE = 19;
const FALLBACK_P2PKH = 17;
const FALLBACK_P2SH = 18;
/** Longest string the fallback address's bech32 encoder produces before refusing. */
const BECH32_ADDRESS_LIMIT = 90;

/**
 * Packs 5-bit words into `target` from `offset`, the last partial byte padded with zero bits;
 * returns where the bytes end. Eight words make five whole bytes, so they go a group at a time,
 * which takes most of the loop's bookkeeping out of the invoice's few hundred words.
 */
function packWords(words: Uint8Array, start: number, end: number, target: Uint8Array, offset: number): number {
  let i = start;
  let length = offset;
  for (; i + 8 <= end; i += 8, length += 5) {
    // Twenty bits in each half, held in 32-bit integers.
    const high = (words[i]! << 15) | (words[i + 1]! << 10) | (words[i + 2]! << 5) | words[i + 3]!;
    const low = (words[i + 4]! << 15) | (words[i + 5]! << 10) | (words[i + 6]! << 5) | words[i + 7]!;
    target[length] = high >> 12;
    target[length + 1] = (high >> 4) & 0xff;
    target[length + 2] = ((high << 4) | (low >> 16)) & 0xff;
    target[length + 3] = (low >> 8) & 0xff;
    target[length + 4] = low & 0xff;
  }
  let accumulator = 0;
  let bits = 0;
  for (; i < end; i++) {
    accumulator = ((accumulator << 5) | words[i]!) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      target[length++] = (accumulator >> bits) & 0xff;
    }
  }
  if (bits > 0) target[length++] = (accumulator << (8 - bits)) & 0xff;
  return length;
}

/** Bytes needed to pack `count` words. */
function packedLength(count: number): number {
  return Math.ceil((count * 5) / 8);
}

/** A field's length in bytes as BOLT11 readers take it: a trailing partial byte is dropped. */
function fieldByteLength(start: number, end: number): number {
  return Math.floor(((end - start) * 5) / 8);
}

/** A field's bytes, hex. */
function fieldHex(words: Uint8Array, start: number, end: number): string {
  // Every byte is written by packWords, so the buffer need not be zeroed first.
  const bytes = Buffer.allocUnsafe(packedLength(end - start));
  packWords(words, start, end, bytes, 0);
  return bytes.toString('hex', 0, fieldByteLength(start, end));
}

function wordsToNumber(words: Uint8Array, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 32 + words[i]!;
  return value;
}

/** `ln` + network + optional amount, split as the `bolt11` package splits it. */
function splitPrefix(prefix: string): { network: string; value: string; multiplier: string } | undefined {
  const withAmount = /^ln(\S+?)(\d*)([a-zA-Z]?)$/.exec(prefix);
  if (withAmount !== null && withAmount[2] !== '') {
    return { network: withAmount[1]!, value: withAmount[2]!, multiplier: withAmount[3]! };
  }
  const bare = /^ln(\S+)$/.exec(prefix);
  return bare === null ? undefined : { network: bare[1]!, value: '', multiplier: '' };
}

/** Undefined when the amount is refused: an unknown multiplier, `p` not a multiple of 10, or over 21M BTC. */
function millisatoshisOf(value: string, multiplier: string): bigint | undefined {
  if (multiplier !== '' && DIVISORS[multiplier] === undefined) return undefined;
  const amount = BigInt(value);
  const divisor = DIVISORS[multiplier];
  const millisatoshis =
    divisor === undefined ? amount * MILLISATOSHIS_PER_BITCOIN : (amount * MILLISATOSHIS_PER_BITCOIN) / divisor;
  if ((multiplier === 'p' && amount % 10n !== 0n) || millisatoshis > MAX_MILLISATOSHIS) return undefined;
  return millisatoshis;
}

/** A fallback address the `bolt11` package could not re-encode makes it refuse the whole invoice. */
function isEncodableFallback(words: Uint8Array, start: number, end: number, networkPrefix: string): boolean {
  if (end <= start) return true;
  const version = words[start]!;
  const hashLength = fieldByteLength(start + 1, end);
  if (version === FALLBACK_P2PKH || version === FALLBACK_P2SH) return hashLength === 20;
  if (version === 0 || version === 1) {
    return networkPrefix.length + 7 + 1 + Math.ceil((hashLength * 8) / 5) <= BECH32_ADDRESS_LIMIT;
  }
  return true;
}

interface TaggedFields {
  paymentHash?: string;
  expirySeconds?: number;
  payee?: string;
}

/** Walks the tagged fields; undefined when one makes the invoice unreadable. */
function readTaggedFields(
  words: Uint8Array,
  start: number,
  end: number,
  networkPrefix: string,
): TaggedFields | undefined {
  const fields: TaggedFields = {};
  let position = start;
  while (position < end) {
    const tag = words[position]!;
    const length = wordsToNumber(words, position + 1, Math.min(position + 3, end));
    const dataStart = Math.min(position + 3, end);
    const dataEnd = Math.min(dataStart + length, end);
    position = dataEnd;
    if (tag === TAG_PAYMENT_HASH && fields.paymentHash === undefined && dataEnd - dataStart === 52) {
      // Readers skip `p` fields of the wrong length; the first well-formed one counts.
      fields.paymentHash = fieldHex(words, dataStart, dataEnd);
    } else if (tag === TAG_EXPIRY && fields.expirySeconds === undefined) {
      fields.expirySeconds = wordsToNumber(words, dataStart, dataEnd);
    } else if (tag === TAG_PAYEE && fields.payee === undefined) {
      fields.payee = fieldHex(words, dataStart, dataEnd);
    } else if (tag === TAG_FALLBACK_ADDRESS && !isEncodableFallback(words, dataStart, dataEnd, networkPrefix)) {
      return undefined;
    }
  }
  return fields;
}

function signatureBytes(words: Uint8Array, start: number): Buffer {
  const bytes = Buffer.allocUnsafe(SIGNATURE_BYTES);
  packWords(words, start, start + SIGNATURE_WORDS, bytes, 0);
  return bytes;
}

/**
 * s against half the order, as big-endian bytes, which orders them as the numbers they spell.
 * Compared in JavaScript: for 32 bytes, a call into Buffer's native compare costs more.
 */
function isLowS(signature: Uint8Array): boolean {
  for (let i = 0; i < SECP256K1_HALF_ORDER.length; i++) {
    const difference = signature[S_START + i]! - SECP256K1_HALF_ORDER[i]!;
    if (difference !== 0) return difference < 0;
  }
  return true;
}

/** What the signature covers: the human-readable part's bytes, then the data words packed. */
function signedBytes(prefix: string, words: Uint8Array, dataEnd: number): Buffer {
  const bytes = Buffer.allocUnsafe(prefix.length + packedLength(dataEnd));
  // The prefix is printable ASCII (splitBech32 checked), so a character is a byte; packWords writes the rest.
  for (let i = 0; i < prefix.length; i++) bytes[i] = prefix.charCodeAt(i);
  packWords(words, 0, dataEnd, bytes, prefix.length);
  return bytes;
}

/** Parses a BOLT11 invoice, everything but its signature; undefined when it is not one. Never throws. */
export function readInvoice(invoice: string): ReadInvoice | undefined {
  if (typeof invoice !== 'string' || invoice.length > MAX_INVOICE_LENGTH) return undefined;
  if (invoice.slice(0, 2).toLowerCase() !== 'ln') return undefined;
  const decoded = splitBech32(invoice);
  if (decoded === undefined || decoded.checksum !== BECH32_CHECKSUM) return undefined;
  const { prefix, words } = decoded;
  const dataEnd = words.length - SIGNATURE_WORDS;
  if (dataEnd < 0) return undefined;

  const signature = signatureBytes(words, dataEnd);
  const recoveryId = signature[RECOVERY_ID_AT]!;
  if (recoveryId > 3) return undefined;

  const parts = splitPrefix(prefix);
  if (parts === undefined || !KNOWN_PREFIXES.has(parts.network)) return undefined;
  const amountMillisatoshis = parts.value === '' ? undefined : millisatoshisOf(parts.value, parts.multiplier);
  if (parts.value !== '' && amountMillisatoshis === undefined) return undefined;

  const timestamp = wordsToNumber(words, 0, Math.min(TIMESTAMP_WORDS, dataEnd));
  const fields = readTaggedFields(words, Math.min(TIMESTAMP_WORDS, dataEnd), dataEnd, parts.network);
  if (fields?.paymentHash === undefined) return undefined;
  if (fields.expirySeconds !== undefined && timestamp + fields.expirySeconds > MAX_DATE_SECONDS) return undefined;
  const expiresAtMs = (timestamp + (fields.expirySeconds ?? DEFAULT_EXPIRY_SECONDS)) * 1000;
  if (!Number.isSafeInteger(expiresAtMs)) return undefined;
  // A key given in `n` is checked against the signature; without one, BOLT11 asks for low-S.
  if (fields.payee === undefined ? !isLowS(signature) : fields.payee.length !== 66) return undefined;

  return {
    network: NETWORK_BY_PREFIX[parts.network]!,
    paymentHash: fields.paymentHash,
    ...(amountMillisatoshis === undefined ? {} : { amountMillisatoshis }),
    timestampMs: timestamp * 1000,
    expiresAtMs,
    ...(fields.payee === undefined ? {} : { payee: fields.payee }),
    signingHash: hash('sha256', signedBytes(prefix, words, dataEnd), 'hex'),
    signature: signature.toString('hex', 0, RECOVERY_ID_AT),
    recoveryId,
  };
}

/** The key that signed a parsed invoice, 66 hex, or undefined when the signature does not hold. */
export function checkInvoiceSignature(invoice: SignedInvoice): string | undefined {
  const key = recoverSignerKey(
    Buffer.from(invoice.signature, 'hex'),
    invoice.recoveryId,
    Buffer.from(invoice.signingHash, 'hex'),
  );
  if (key === undefined) return undefined;
  const signer = Buffer.from(key).toString('hex');
  return invoice.payee === undefined || invoice.payee === signer ? signer : undefined;
}

/**
 * The compressed key that made a 64-byte signature of a 32-byte hash, or undefined when none did. Bytes in and
 * out, for the checker processes, which read their checks from one packed buffer.
 */
export function recoverSignerKey(
  signature: Uint8Array,
  recoveryId: number,
  signingHash: Uint8Array,
): Uint8Array | undefined {
  try {
    return secp256k1.ecdsaRecover(signature, recoveryId, signingHash, true);
  } catch {
    return undefined;
  }
}

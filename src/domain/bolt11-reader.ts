/**
 * BOLT11 invoices read in two steps: parsing, cheap and synchronous, and the signature check,
 * which costs more than everything else an import does with an order and so can be run on
 * another thread. Together they accept exactly the invoices the `bolt11` package's decoder (with
 * the project's own checks on top) accepted: the tests hold the two side by side.
 */
import { hash } from 'node:crypto';
import secp256k1 from 'secp256k1';
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

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** Word value by character code, -1 for characters outside the charset: a million invoices are decoded per import. */
const CHARSET_VALUES = new Int8Array(128).fill(-1);
for (let value = 0; value < CHARSET.length; value++) CHARSET_VALUES[CHARSET.charCodeAt(value)] = value;
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;

const NETWORK_BY_PREFIX: Readonly<Record<string, Network>> = { bc: 'mainnet', tb: 'testnet', bcrt: 'simnet', sb: 'simnet' };
/** The `bolt11` package's own prefixes, the ones it accepts: mainnet, testnet, regtest and simnet. */
const KNOWN_PREFIXES: ReadonlySet<string> = new Set(Object.keys(NETWORK_BY_PREFIX));

const SIGNATURE_WORDS = 104;
const TIMESTAMP_WORDS = 7;
/** BOLT11: "If the x field is not provided, the expiry is 3600 seconds." */
const DEFAULT_EXPIRY_SECONDS = 3600;
const MAX_MILLISATOSHIS = 2_100_000_000_000_000_000n;
const MILLISATOSHIS_PER_BITCOIN = 100_000_000_000n;
const DIVISORS: Readonly<Record<string, bigint>> = { m: 1_000n, u: 1_000_000n, n: 1_000_000_000n, p: 1_000_000_000_000n };
const SECP256K1_HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
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

function polymodStep(checksum: number): number {
  const top = checksum >> 25;
  return (
    ((checksum & 0x1ffffff) << 5) ^
    (-(top & 1) & GENERATORS[0]) ^
    (-((top >> 1) & 1) & GENERATORS[1]) ^
    (-((top >> 2) & 1) & GENERATORS[2]) ^
    (-((top >> 3) & 1) & GENERATORS[3]) ^
    (-((top >> 4) & 1) & GENERATORS[4])
  );
}

/** Bech32 (not bech32m) without its 90-character limit, as BOLT11 uses it; undefined when malformed. */
function decodeBech32(text: string): { prefix: string; words: number[] } | undefined {
  if (text.length < 8) return undefined;
  const lowered = text.toLowerCase();
  if (text !== lowered && text !== text.toUpperCase()) return undefined;
  const separator = lowered.lastIndexOf('1');
  if (separator < 1 || lowered.length - separator - 1 < 6) return undefined;
  const prefix = lowered.slice(0, separator);
  let checksum = 1;
  for (let i = 0; i < prefix.length; i++) {
    const code = prefix.charCodeAt(i);
    if (code < 33 || code > 126) return undefined;
    checksum = polymodStep(checksum) ^ (code >> 5);
  }
  checksum = polymodStep(checksum);
  for (let i = 0; i < prefix.length; i++) checksum = polymodStep(checksum) ^ (prefix.charCodeAt(i) & 0x1f);
  const dataEnd = lowered.length - 6;
  const words = new Array<number>(dataEnd - separator - 1);
  for (let i = separator + 1; i < lowered.length; i++) {
    const code = lowered.charCodeAt(i);
    const value = code < 128 ? CHARSET_VALUES[code]! : -1;
    if (value < 0) return undefined;
    checksum = polymodStep(checksum) ^ value;
    if (i < dataEnd) words[i - separator - 1] = value;
  }
  return checksum === 1 ? { prefix, words } : undefined;
}

/** 5-bit words to bytes, the last partial byte padded with zero bits. */
function wordsToBytes(words: readonly number[], start: number, end: number): Buffer {
  const bytes = Buffer.alloc(Math.ceil(((end - start) * 5) / 8));
  let accumulator = 0;
  let bits = 0;
  let length = 0;
  for (let i = start; i < end; i++) {
    accumulator = ((accumulator << 5) | words[i]!) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[length++] = (accumulator >> bits) & 0xff;
    }
  }
  if (bits > 0) bytes[length++] = (accumulator << (8 - bits)) & 0xff;
  return bytes;
}

/** A field's bytes as BOLT11 readers take them: a trailing partial byte is dropped. */
function fieldBytes(words: readonly number[], start: number, end: number): Buffer {
  const bytes = wordsToBytes(words, start, end);
  return ((end - start) * 5) % 8 === 0 ? bytes : bytes.subarray(0, -1);
}

function wordsToNumber(words: readonly number[], start: number, end: number): number {
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
  const millisatoshis = divisor === undefined ? amount * MILLISATOSHIS_PER_BITCOIN : (amount * MILLISATOSHIS_PER_BITCOIN) / divisor;
  if ((multiplier === 'p' && amount % 10n !== 0n) || millisatoshis > MAX_MILLISATOSHIS) return undefined;
  return millisatoshis;
}

/** A fallback address the `bolt11` package could not re-encode makes it refuse the whole invoice. */
function isEncodableFallback(words: readonly number[], start: number, end: number, networkPrefix: string): boolean {
  if (end <= start) return true;
  const version = words[start]!;
  const hashLength = fieldBytes(words, start + 1, end).length;
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
function readTaggedFields(words: readonly number[], start: number, end: number, networkPrefix: string): TaggedFields | undefined {
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
      fields.paymentHash = fieldBytes(words, dataStart, dataEnd).toString('hex');
    } else if (tag === TAG_EXPIRY && fields.expirySeconds === undefined) {
      fields.expirySeconds = wordsToNumber(words, dataStart, dataEnd);
    } else if (tag === TAG_PAYEE && fields.payee === undefined) {
      fields.payee = fieldBytes(words, dataStart, dataEnd).toString('hex');
    } else if (tag === TAG_FALLBACK_ADDRESS && !isEncodableFallback(words, dataStart, dataEnd, networkPrefix)) {
      return undefined;
    }
  }
  return fields;
}

function isLowS(signature: Buffer): boolean {
  return BigInt(`0x${signature.subarray(32, 64).toString('hex')}`) <= SECP256K1_HALF_ORDER;
}

/** Parses a BOLT11 invoice, everything but its signature; undefined when it is not one. Never throws. */
export function readInvoice(invoice: string): ReadInvoice | undefined {
  if (typeof invoice !== 'string' || invoice.length > MAX_INVOICE_LENGTH) return undefined;
  if (invoice.slice(0, 2).toLowerCase() !== 'ln') return undefined;
  const decoded = decodeBech32(invoice);
  if (decoded === undefined) return undefined;
  const { prefix, words } = decoded;
  const dataEnd = words.length - SIGNATURE_WORDS;
  if (dataEnd < 0) return undefined;

  const signatureBytes = wordsToBytes(words, dataEnd, words.length);
  const recoveryId = signatureBytes[64]!;
  if (recoveryId > 3) return undefined;
  const signature = signatureBytes.subarray(0, 64);

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

  const signed = Buffer.concat([Buffer.from(prefix, 'utf8'), wordsToBytes(words, 0, dataEnd)]);
  return {
    network: NETWORK_BY_PREFIX[parts.network]!,
    paymentHash: fields.paymentHash,
    ...(amountMillisatoshis === undefined ? {} : { amountMillisatoshis }),
    timestampMs: timestamp * 1000,
    expiresAtMs,
    ...(fields.payee === undefined ? {} : { payee: fields.payee }),
    signingHash: hash('sha256', signed, 'hex'),
    signature: signature.toString('hex'),
    recoveryId,
  };
}

/** The key that signed a parsed invoice, 66 hex, or undefined when the signature does not hold. */
export function checkInvoiceSignature(invoice: SignedInvoice): string | undefined {
  try {
    const key = secp256k1.ecdsaRecover(
      Buffer.from(invoice.signature, 'hex'),
      invoice.recoveryId,
      Buffer.from(invoice.signingHash, 'hex'),
      true,
    );
    const signer = Buffer.from(key).toString('hex');
    return invoice.payee === undefined || invoice.payee === signer ? signer : undefined;
  } catch {
    return undefined;
  }
}

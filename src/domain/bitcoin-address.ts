/**
 * Bitcoin addresses decoded by hand: base58check (BIP-13) and segwit (BIP-173 bech32, BIP-350
 * bech32m). bitcoinjs does the same through layers of schema checks that cost tens of
 * microseconds an address, and an import checks two addresses for each of a million orders. The
 * tests hold these decoders to accepting exactly what bitcoinjs accepts.
 */
import { hash } from 'node:crypto';

export interface Base58Address {
  readonly version: number;
  /** 20 bytes. */
  readonly hash: Buffer;
}

export interface SegwitAddress {
  /** Lowercase human-readable part: bc, tb, bcrt. */
  readonly prefix: string;
  readonly version: number;
  readonly program: Buffer;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_VALUES = new Map([...BASE58_ALPHABET].map((char, value) => [char, value]));
/** Version byte, 20-byte hash, 4-byte checksum. */
const BASE58_ADDRESS_BYTES = 25;

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_VALUES = new Map([...BECH32_CHARSET].map((char, value) => [char, value]));
const BECH32_GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;
const BECH32_CONSTANT = 1;
const BECH32M_CONSTANT = 0x2bc830a3;
const BECH32_LIMIT = 90;

/** The one-shot `hash` rather than a Hash object: an import checks two addresses per order. */
function sha256(data: Uint8Array): Buffer {
  return hash('sha256', data, 'buffer');
}

/** Undefined unless `text` is base58 of exactly 25 bytes whose last 4 are their double-SHA-256 checksum. */
export function decodeBase58Address(text: string): Base58Address | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) return undefined;
  let leadingZeros = 0;
  while (text[leadingZeros] === '1') leadingZeros++;
  const digits: number[] = [];
  for (let i = leadingZeros; i < text.length; i++) {
    let carry = BASE58_VALUES.get(text[i]!);
    if (carry === undefined) return undefined;
    for (let j = digits.length - 1; j >= 0; j--) {
      carry += digits[j]! * 58;
      digits[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      digits.unshift(carry & 0xff);
      carry >>= 8;
    }
  }
  const firstNonZero = digits.findIndex((digit) => digit !== 0);
  const significant = firstNonZero === -1 ? [] : digits.slice(firstNonZero);
  if (leadingZeros + significant.length !== BASE58_ADDRESS_BYTES) return undefined;
  const bytes = Buffer.concat([Buffer.alloc(leadingZeros), Buffer.from(significant)]);
  const payload = bytes.subarray(0, 21);
  if (!sha256(sha256(payload)).subarray(0, 4).equals(bytes.subarray(21))) return undefined;
  return { version: payload[0]!, hash: payload.subarray(1) };
}

function polymodStep(checksum: number): number {
  const top = checksum >> 25;
  let next = (checksum & 0x1ffffff) << 5;
  for (let bit = 0; bit < 5; bit++) if ((top >> bit) & 1) next ^= BECH32_GENERATORS[bit]!;
  return next;
}

/** 5-bit words to bytes, refusing the padding BIP-173 forbids: 5 or more bits, or bits that are not zero. */
function wordsToBytesStrict(words: readonly number[]): Buffer | undefined {
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const word of words) {
    accumulator = ((accumulator << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((accumulator << (8 - bits)) & 0xff) !== 0) return undefined;
  return Buffer.from(bytes);
}

/**
 * A segwit address: bech32 for version 0, bech32m for the others. Undefined when malformed; the
 * program's length is left to the caller, as bitcoinjs leaves it.
 */
export function decodeSegwitAddress(text: string): SegwitAddress | undefined {
  if (typeof text !== 'string' || text.length < 8 || text.length > BECH32_LIMIT) return undefined;
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
  const words: number[] = [];
  for (let i = separator + 1; i < lowered.length; i++) {
    const value = BECH32_VALUES.get(lowered[i]!);
    if (value === undefined) return undefined;
    checksum = polymodStep(checksum) ^ value;
    if (i < lowered.length - 6) words.push(value);
  }
  const version = words[0];
  if (version === undefined) return undefined;
  if (checksum !== (version === 0 ? BECH32_CONSTANT : BECH32M_CONSTANT)) return undefined;
  const program = wordsToBytesStrict(words.slice(1));
  return program === undefined ? undefined : { prefix, version, program };
}

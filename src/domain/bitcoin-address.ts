/**
 * Bitcoin addresses decoded by hand: base58check (BIP-13) and segwit (BIP-173 bech32, BIP-350
 * bech32m). bitcoinjs does the same through layers of schema checks that cost tens of
 * microseconds an address, and an import checks two addresses for each of a million orders. The
 * tests hold these decoders to accepting exactly what bitcoinjs accepts.
 */
import { hash } from 'node:crypto';
import { BECH32_CHECKSUM, BECH32M_CHECKSUM, splitBech32 } from './bech32.js';

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

const SEGWIT_MAX_LENGTH = 90;

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

/**
 * A segwit address: bech32 for version 0, bech32m for the others. Undefined when malformed; the
 * program's length is left to the caller, as bitcoinjs leaves it.
 */
export function decodeSegwitAddress(text: string): SegwitAddress | undefined {
  if (typeof text !== 'string' || text.length > SEGWIT_MAX_LENGTH) return undefined;
  const parts = splitBech32(text);
  if (parts === undefined || parts.words.length === 0) return undefined;
  const { prefix, words, checksum } = parts;
  const version = words[0]!;
  if (checksum !== (version === 0 ? BECH32_CHECKSUM : BECH32M_CHECKSUM)) return undefined;
  const program = wordsToBytesStrict(words.subarray(1));
  return program === undefined ? undefined : { prefix, version, program };
}

/** 5-bit words to bytes, refusing the padding BIP-173 forbids: 5 or more bits, or bits that are not zero. */
function wordsToBytesStrict(words: Uint8Array): Buffer | undefined {
  const paddingBits = (words.length * 5) % 8;
  if (paddingBits >= 5) return undefined;
  const bytes = Buffer.alloc((words.length * 5 - paddingBits) / 8);
  let accumulator = 0;
  let bits = 0;
  let length = 0;
  for (const word of words) {
    accumulator = ((accumulator << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[length++] = (accumulator >> bits) & 0xff;
    }
  }
  return (accumulator & ((1 << paddingBits) - 1)) === 0 ? bytes : undefined;
}

/**
 * Bitcoin addresses decoded by hand: base58check (BIP-13) and segwit (BIP-173 bech32, BIP-350
 * bech32m). bitcoinjs does the same through layers of schema checks that cost tens of
 * microseconds an address, and an import checks two addresses for each of a million orders. The
 * tests hold these decoders to accepting exactly what bitcoinjs accepts. Kept by the codec trial:
 * about 6 s of a million-order import (BENCHMARKS.md).
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
/** Digit value by character code, -1 for characters outside the alphabet. */
const BASE58_VALUES = new Int8Array(128).fill(-1);
for (let value = 0; value < BASE58_ALPHABET.length; value++) BASE58_VALUES[BASE58_ALPHABET.charCodeAt(value)] = value;
/** Each leading '1' stands for a leading zero byte. */
const BASE58_ZERO = '1'.charCodeAt(0);
/** Version byte, 20-byte hash, 4-byte checksum. */
const BASE58_ADDRESS_BYTES = 25;
const BASE58_PAYLOAD_BYTES = 21;
const BASE58_MAX_LENGTH = 64;

const SEGWIT_MAX_LENGTH = 90;

/**
 * The first 4 bytes of SHA-256 applied twice, hex. The one-shot `hash` rather than a Hash object,
 * with hex output: a Buffer made by the native side costs more than hashing an address, and an
 * import checks two addresses per order.
 */
function base58Checksum(payload: Uint8Array): string {
  const once = hash('sha256', payload, 'hex');
  return hash('sha256', Buffer.from(once, 'hex'), 'hex').slice(0, 8);
}

/** Undefined unless `text` is base58 of exactly 25 bytes whose last 4 are their double-SHA-256 checksum. */
export function decodeBase58Address(text: string): Base58Address | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > BASE58_MAX_LENGTH) return undefined;
  let leadingZeros = 0;
  while (text.charCodeAt(leadingZeros) === BASE58_ZERO) leadingZeros++;
  // The number the digits spell, big-endian, in exactly the bytes an address has: one that needs more is refused.
  const bytes = Buffer.alloc(BASE58_ADDRESS_BYTES);
  let firstUsed = BASE58_ADDRESS_BYTES;
  for (let i = leadingZeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? BASE58_VALUES[code]! : -1;
    if (digit < 0) return undefined;
    firstUsed = multiplyAdd(bytes, firstUsed, digit);
    if (firstUsed < 0) return undefined;
  }
  // The leading '1's must account for exactly the zero bytes the number leaves in front.
  if (leadingZeroBytes(bytes) !== leadingZeros) return undefined;
  const payload = bytes.subarray(0, BASE58_PAYLOAD_BYTES);
  if (base58Checksum(payload) !== bytes.toString('hex', BASE58_PAYLOAD_BYTES)) return undefined;
  return { version: payload[0]!, hash: payload.subarray(1) };
}

/**
 * `number` = `number` * 58 + `digit`, where `number` is big-endian and its bytes before `firstUsed`
 * are zero: they are left alone until a carry reaches them, which halves the work of a decode.
 * Returns where the result starts, -1 when it outgrows `number`.
 */
function multiplyAdd(number: Uint8Array, firstUsed: number, digit: number): number {
  let carry = digit;
  let j = number.length - 1;
  for (; j >= firstUsed || carry !== 0; j--) {
    if (j < 0) return -1;
    carry += number[j]! * 58;
    number[j] = carry & 0xff;
    carry >>= 8;
  }
  return j + 1;
}

function leadingZeroBytes(bytes: Uint8Array): number {
  let count = 0;
  while (count < bytes.length && bytes[count] === 0) count++;
  return count;
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
  const program = wordsToBytesStrict(words, 1);
  return program === undefined ? undefined : { prefix, version, program };
}

/** Words from `start` to bytes, refusing the padding BIP-173 forbids: 5 or more bits, or bits that are not zero. */
function wordsToBytesStrict(words: Uint8Array, start: number): Buffer | undefined {
  const paddingBits = ((words.length - start) * 5) % 8;
  if (paddingBits >= 5) return undefined;
  const bytes = Buffer.alloc(((words.length - start) * 5 - paddingBits) / 8);
  let accumulator = 0;
  let bits = 0;
  let length = 0;
  for (let i = start; i < words.length; i++) {
    accumulator = ((accumulator << 5) | words[i]!) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[length++] = (accumulator >> bits) & 0xff;
    }
  }
  return (accumulator & ((1 << paddingBits) - 1)) === 0 ? bytes : undefined;
}

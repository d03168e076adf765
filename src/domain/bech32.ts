/**
 * Bech32 text (BIP-173, and BIP-350's bech32m, which differs only in the checksum's constant)
 * split into its human-readable part and 5-bit words. Shared by the BOLT11 reader and the segwit
 * address decoder, which each judge the checksum and the words themselves: an import runs both
 * for every order, so the words come in a typed array and characters are looked up in a table.
 * Kept over @scure/base by the codec trial: about 9 s of a million-order import (BENCHMARKS.md).
 * The repository's one bech32: the bench's invoice signer and the test helpers use it too.
 */

/** What the checksum leaves when it holds: bech32 ... */
export const BECH32_CHECKSUM = 1;
/** ... and bech32m. */
export const BECH32M_CHECKSUM = 0x2bc830a3;

export interface Bech32Parts {
  /** Lowercase human-readable part. */
  readonly prefix: string;
  /** The data part's words, the six checksum words left out. */
  readonly words: Uint8Array;
  /** BECH32_CHECKSUM or BECH32M_CHECKSUM when the checksum holds, anything else when it does not. */
  readonly checksum: number;
}

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** Word value by character code, -1 for characters outside the charset. */
const CHARSET_VALUES = new Int8Array(128).fill(-1);
for (let value = 0; value < CHARSET.length; value++) CHARSET_VALUES[CHARSET.charCodeAt(value)] = value;
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;
/** For each value of the 5 bits a polymod step shifts out, the generators they select, XORed together. */
const GENERATOR_SUMS = new Int32Array(32);
for (let top = 0; top < 32; top++) {
  for (let bit = 0; bit < 5; bit++) if ((top >> bit) & 1) GENERATOR_SUMS[top]! ^= GENERATORS[bit]!;
}
const CHECKSUM_WORDS = 6;
/** The shortest text with a one-character prefix, a separator and a checksum. */
const MIN_LENGTH = 8;

function polymodStep(checksum: number): number {
  return ((checksum & 0x1ffffff) << 5) ^ GENERATOR_SUMS[checksum >> 25]!;
}

/** The checksum state after the expanded human-readable part; -1 when a character is not printable ASCII. */
function prefixChecksum(prefix: string): number {
  let checksum = 1;
  for (let i = 0; i < prefix.length; i++) {
    const code = prefix.charCodeAt(i);
    if (code < 33 || code > 126) return -1;
    checksum = polymodStep(checksum) ^ (code >> 5);
  }
  checksum = polymodStep(checksum);
  for (let i = 0; i < prefix.length; i++) checksum = polymodStep(checksum) ^ (prefix.charCodeAt(i) & 0x1f);
  return checksum;
}

/** Undefined when `text` is not bech32-shaped: mixed case, no prefix, too short a data part, a foreign character. */
export function splitBech32(text: string): Bech32Parts | undefined {
  if (text.length < MIN_LENGTH) return undefined;
  // Lowercasing is left to toLowerCase, which maps a few non-ASCII letters (the Kelvin sign) to ASCII ones.
  const lowered = text.toLowerCase();
  if (text !== lowered && text !== text.toUpperCase()) return undefined;
  const separator = lowered.lastIndexOf('1');
  if (separator < 1 || lowered.length - separator - 1 < CHECKSUM_WORDS) return undefined;
  const prefix = lowered.slice(0, separator);
  let checksum = prefixChecksum(prefix);
  if (checksum < 0) return undefined;
  const wordsStart = separator + 1;
  // From Buffer's pool: a typed array this long would get a backing store of its own, which costs
  // more than decoding the words. Every word is written below before anyone reads it.
  const words = Buffer.allocUnsafe(lowered.length - CHECKSUM_WORDS - wordsStart);
  for (let i = wordsStart; i < lowered.length; i++) {
    const code = lowered.charCodeAt(i);
    const value = code < 128 ? CHARSET_VALUES[code]! : -1;
    if (value < 0) return undefined;
    checksum = polymodStep(checksum) ^ value;
    if (i - wordsStart < words.length) words[i - wordsStart] = value;
  }
  return { prefix, words, checksum };
}

/**
 * Bech32 text of a lowercase prefix and 5-bit words, with the checksum that leaves `checksumConstant`
 * (BECH32_CHECKSUM unless told), and no length limit, as BOLT11 needs.
 */
export function joinBech32(prefix: string, words: ArrayLike<number>, checksumConstant = BECH32_CHECKSUM): string {
  let checksum = prefixChecksum(prefix);
  if (checksum < 0 || prefix.length === 0) throw new RangeError(`not a bech32 prefix: ${JSON.stringify(prefix)}`);
  let text = `${prefix}1`;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!Number.isInteger(word) || word < 0 || word > 31) throw new RangeError(`not a 5-bit word: ${word}`);
    checksum = polymodStep(checksum) ^ word;
    text += CHARSET[word];
  }
  for (let i = 0; i < CHECKSUM_WORDS; i++) checksum = polymodStep(checksum);
  checksum ^= checksumConstant;
  for (let i = CHECKSUM_WORDS - 1; i >= 0; i--) text += CHARSET[(checksum >>> (5 * i)) & 31];
  return text;
}

/** Values of `fromBits` bits regrouped into values of `toBits` bits, big-endian; a last partial group is padded with zero bits. */
function regroup(values: ArrayLike<number>, fromBits: number, toBits: number): number[] {
  const out: number[] = [];
  const mask = (1 << toBits) - 1;
  let accumulator = 0;
  let bits = 0;
  for (let i = 0; i < values.length; i++) {
    accumulator = ((accumulator << fromBits) | values[i]!) & 0xffff;
    bits += fromBits;
    while (bits >= toBits) {
      bits -= toBits;
      out.push((accumulator >>> bits) & mask);
    }
  }
  if (bits > 0) out.push((accumulator << (toBits - bits)) & mask);
  return out;
}

/** Bytes as 5-bit words, the last word padded with zero bits. */
export function bytesToWords(bytes: ArrayLike<number>): number[] {
  return regroup(bytes, 8, 5);
}

/** 5-bit words as bytes, the last byte padded with zero bits (as BOLT11 signs them). */
export function wordsToBytes(words: ArrayLike<number>): Buffer {
  return Buffer.from(regroup(words, 5, 8));
}

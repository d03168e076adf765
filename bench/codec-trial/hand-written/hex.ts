/**
 * The hex checks src/domain/hex.ts had until the codec trial replaced them by regular expressions,
 * kept here so that `npm run bench:codecs` can still time the two against each other. Either case of
 * a-f counts.
 */

const HEX_DIGITS = '0123456789abcdefABCDEF';
/** 1 for the character codes of hex digits. */
const IS_HEX_DIGIT = new Uint8Array(128);
for (let i = 0; i < HEX_DIGITS.length; i++) IS_HEX_DIGIT[HEX_DIGITS.charCodeAt(i)] = 1;
const ZERO = '0'.charCodeAt(0);
const LOWER_X = 'x'.charCodeAt(0);

/** Whether `text` holds nothing but hex digits from `start` to `end`. */
export function isHexRange(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || IS_HEX_DIGIT[code] === 0) return false;
  }
  return true;
}

/** Exactly `digits` hex digits. */
export function isHexOfLength(text: string, digits: number): boolean {
  return text.length === digits && isHexRange(text, 0, digits);
}

/** Whole bytes' worth of hex digits, at least one byte. */
export function isHexBytes(text: string): boolean {
  return text.length > 0 && text.length % 2 === 0 && isHexRange(text, 0, text.length);
}

/** `0x` (lower-case x) and exactly `digits` hex digits, as Ethereum writes hashes and addresses. */
export function isZeroXHex(text: string, digits: number): boolean {
  return (
    text.length === digits + 2 &&
    text.charCodeAt(0) === ZERO &&
    text.charCodeAt(1) === LOWER_X &&
    isHexRange(text, 2, text.length)
  );
}

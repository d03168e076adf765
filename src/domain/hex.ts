/**
 * Hex digit checks as regular expressions. Hand-written loops save well under a second of a
 * million-order import: not worth code of our own (BENCHMARKS.md). Either case of a-f counts.
 */

const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const ZERO_X_HEX_DIGITS = /^0x[0-9a-fA-F]*$/;

/** Exactly `digits` hex digits. */
export function isHexOfLength(text: string, digits: number): boolean {
  return text.length === digits && HEX_DIGITS.test(text);
}

/** Whole bytes' worth of hex digits, at least one byte. */
export function isHexBytes(text: string): boolean {
  return text.length > 0 && text.length % 2 === 0 && HEX_DIGITS.test(text);
}

/** `0x` (lower-case x) and exactly `digits` hex digits, as Ethereum writes hashes and addresses. */
export function isZeroXHex(text: string, digits: number): boolean {
  return text.length === digits + 2 && ZERO_X_HEX_DIGITS.test(text);
}

/** Bech32 (BIP 173) with no length limit, as BOLT11 uses it. */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymodStep(checksum: number, value: number): number {
  const top = checksum >>> 25;
  let next = ((checksum & 0x1ffffff) << 5) ^ value;
  for (let bit = 0; bit < 5; bit++) {
    if ((top >>> bit) & 1) next ^= GENERATOR[bit]!;
  }
  return next;
}

function checksumWords(prefix: string, words: readonly number[]): number[] {
  let checksum = 1;
  for (let i = 0; i < prefix.length; i++) checksum = polymodStep(checksum, prefix.charCodeAt(i) >>> 5);
  checksum = polymodStep(checksum, 0);
  for (let i = 0; i < prefix.length; i++) checksum = polymodStep(checksum, prefix.charCodeAt(i) & 31);
  for (const word of words) checksum = polymodStep(checksum, word);
  for (let i = 0; i < 6; i++) checksum = polymodStep(checksum, 0);
  checksum ^= 1;
  const out: number[] = [];
  for (let i = 0; i < 6; i++) out.push((checksum >>> (5 * (5 - i))) & 31);
  return out;
}

export function bech32Encode(prefix: string, words: readonly number[]): string {
  let out = `${prefix}1`;
  for (const word of words) out += CHARSET[word];
  for (const word of checksumWords(prefix, words)) out += CHARSET[word];
  return out;
}

/** Regroups bits from one width to another, big-endian; a partial last group is padded with zero bits. */
function regroup(values: ArrayLike<number>, fromBits: number, toBits: number): number[] {
  const out: number[] = [];
  const mask = (1 << toBits) - 1;
  let accumulator = 0;
  let bits = 0;
  for (let i = 0; i < values.length; i++) {
    accumulator = (accumulator << fromBits) | values[i]!;
    bits += fromBits;
    while (bits >= toBits) {
      bits -= toBits;
      out.push((accumulator >>> bits) & mask);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((accumulator << (toBits - bits)) & mask);
  return out;
}

export function bytesToWords(bytes: ArrayLike<number>): number[] {
  return regroup(bytes, 8, 5);
}

export function wordsToPaddedBytes(words: readonly number[]): Buffer {
  return Buffer.from(regroup(words, 5, 8));
}

/** An unsigned integer as the fewest 5-bit words, big-endian. */
export function integerToWords(value: number, minimumWords = 1): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest > 0 || out.length < minimumWords) {
    out.unshift(rest % 32);
    rest = Math.floor(rest / 32);
  }
  return out;
}

import { createHash } from 'node:crypto';

/**
 * Deterministic randomness (sfc32) so that the same order count always yields the same dataset:
 * a cached store can be checked against, and rebuilt into, exactly what another run measured.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const digest = createHash('sha256').update(seed).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    for (let i = 0; i < 16; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  fraction(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** Uniform integer in [min, max]. */
  integer(min: number, max: number): number {
    return min + Math.floor(this.fraction() * (max - min + 1));
  }

  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(Math.ceil(length / 4) * 4);
    for (let offset = 0; offset < out.length; offset += 4) out.writeUInt32LE(this.nextUint32(), offset);
    return out.subarray(0, length);
  }

  hex(byteLength: number): string {
    return this.bytes(byteLength).toString('hex');
  }

  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let point = this.fraction() * total;
    for (const [key, weight] of entries) {
      point -= weight;
      if (point < 0) return key;
    }
    return entries[entries.length - 1]![0];
  }

  /** A version-4 UUID, lowercase and dashed, as the store keeps order ids. */
  uuid(): string {
    const bytes = this.bytes(16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

/** Bits per key of each filter: with four probes, about one key in a hundred never seen reads as seen. */
const BITS_PER_KEY = 10;
const PROBES = 4;

/**
 * The keys seen among the last `window` to `2 × window` distinct keys, approximately: two Bloom filters, the
 * current one taking new keys and the previous one still asked, the previous one dropped when the current one
 * has taken `window` keys (TinyLFU's "doorkeeper", in two generations so that no key is forgotten the moment
 * after it was added). A key is never reported unseen while it is within the window, whichever other keys are
 * read in between: a table of one key per slot forgot every key whose slot another key of the same cycle took,
 * and in a cycle through 4,096 keys a fifth of them were never reported seen.
 */
export class RecentKeys {
  private current: Uint32Array;
  private previous: Uint32Array;
  private addedToCurrent = 0;
  private readonly bitMask: number;

  constructor(private readonly window: number) {
    const bits = nextPowerOfTwo(Math.max(64, window * BITS_PER_KEY));
    this.bitMask = bits - 1;
    this.current = new Uint32Array(bits / 32);
    this.previous = new Uint32Array(bits / 32);
  }

  /** Whether the key of `hash` (32 bits) was seen within the window; it is seen from now on. */
  seenBefore(hash: number): boolean {
    if (this.contains(this.current, hash)) return true;
    const seen = this.contains(this.previous, hash);
    this.add(hash);
    return seen;
  }

  private add(hash: number): void {
    const step = secondHash(hash);
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = (hash + probe * step) & this.bitMask;
      this.current[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.addedToCurrent += 1;
    if (this.addedToCurrent >= this.window) {
      const emptied = this.previous.fill(0);
      this.previous = this.current;
      this.current = emptied;
      this.addedToCurrent = 0;
    }
  }

  private contains(filter: Uint32Array, hash: number): boolean {
    const step = secondHash(hash);
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = (hash + probe * step) & this.bitMask;
      if ((filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** An odd step for double hashing, from the high bits mixed down (Kirsch and Mitzenmacher). */
function secondHash(hash: number): number {
  return (Math.imul(hash ^ (hash >>> 16), 0x45d9f3b) >>> 7) | 1;
}

function nextPowerOfTwo(count: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, count)));
}

const INITIAL_SLOTS = 1 << 12;
/** Linear probing stays short up to here; past it the table doubles. */
const MAX_LOAD = 0.75;

/** Writes the binary form of `key` into `out` as 32-bit words, or throws when `key` has no such form. */
export type KeyWordsReader = (key: string, out: Uint32Array) => void;

/**
 * The record index at which an import first read each of a set of fixed-size binary keys (ids, hashes), kept
 * in typed arrays outside V8's heap: `wordsPerKey` 32-bit words and one index a slot. A Map of the keys' hex
 * strings cost 100-200 bytes a key on the heap, and every full collection of a large import traced them all.
 */
export class RecordIndexTable {
  private words: Uint32Array;
  /** Record index + 1 per slot; 0 marks an empty slot. */
  private recordIndexes = new Int32Array(INITIAL_SLOTS);
  private used = 0;
  private readonly probe: Uint32Array;

  constructor(
    private readonly wordsPerKey: number,
    private readonly readKeyWords: KeyWordsReader,
  ) {
    this.words = new Uint32Array(INITIAL_SLOTS * wordsPerKey);
    this.probe = new Uint32Array(wordsPerKey);
  }

  /**
   * Records that `key` was read at `recordIndex`, unless it was read before: then its first index stays and is
   * returned. One lookup serves both the check for a repeat and the record, once per order of an import.
   */
  recordFirst(key: string, recordIndex: number): number | undefined {
    if (!Number.isInteger(recordIndex) || recordIndex < 0 || recordIndex >= 0x7fffffff) {
      throw new RangeError(`record index out of range: ${recordIndex}`);
    }
    this.readKeyWords(key, this.probe);
    const slot = this.findSlot(this.probe);
    const stored = this.recordIndexes[slot]!;
    if (stored !== 0) return stored - 1;
    this.words.set(this.probe, slot * this.wordsPerKey);
    this.recordIndexes[slot] = recordIndex + 1;
    this.used += 1;
    if (this.used > this.recordIndexes.length * MAX_LOAD) this.grow();
    return undefined;
  }

  /**
   * The words of the key recorded at `recordIndex`, if one was. A scan of the whole table: it names the earlier
   * record in an error message, once per failed import, so no reverse index is kept for it.
   */
  protected keyWordsAt(recordIndex: number): Uint32Array | undefined {
    if (recordIndex < 0) return undefined;
    const slot = this.recordIndexes.indexOf(recordIndex + 1);
    return slot < 0 ? undefined : this.words.slice(slot * this.wordsPerKey, (slot + 1) * this.wordsPerKey);
  }

  /** The slot holding `key`, or the empty slot where it belongs. */
  private findSlot(key: Uint32Array): number {
    const mask = this.recordIndexes.length - 1;
    let slot = hashWords(key) & mask;
    for (;;) {
      if (this.recordIndexes[slot] === 0 || this.holds(slot, key)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private holds(slot: number, key: Uint32Array): boolean {
    const at = slot * this.wordsPerKey;
    for (let word = 0; word < this.wordsPerKey; word++) if (this.words[at + word] !== key[word]) return false;
    return true;
  }

  private grow(): void {
    const oldWords = this.words;
    const oldIndexes = this.recordIndexes;
    const width = this.wordsPerKey;
    this.words = new Uint32Array(oldWords.length * 2);
    this.recordIndexes = new Int32Array(oldIndexes.length * 2);
    for (let slot = 0; slot < oldIndexes.length; slot++) {
      if (oldIndexes[slot] === 0) continue;
      const key = oldWords.subarray(slot * width, (slot + 1) * width);
      const target = this.findSlot(key);
      this.words.set(key, target * width);
      this.recordIndexes[target] = oldIndexes[slot]!;
    }
  }
}

/** Every word mixed in turn (keys need not be random: fixtures' ids count up), then murmur3's finalizer. */
function hashWords(key: Uint32Array): number {
  let hash = 0;
  for (const word of key) {
    hash = Math.imul(hash ^ word, 0x85ebca6b);
    hash ^= hash >>> 13;
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

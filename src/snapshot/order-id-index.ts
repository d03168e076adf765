const INITIAL_SLOTS = 1 << 12;
/** Linear probing stays short up to here; past it the table doubles. */
const MAX_LOAD = 0.75;
const WORDS_PER_ID = 4;

/**
 * The record index of each order id an import has read, so a repeated id is refused with the record it repeats
 * named. An id is a UUID, 16 bytes: the table keeps them in typed arrays, 20 bytes a slot, outside V8's heap.
 * A Map of id strings cost about 100 bytes an id on the heap, a gigabyte for a 10,000,000-order snapshot, and
 * every full collection of the import traced all of them.
 */
export class OrderIdIndex {
  private words = new Uint32Array(INITIAL_SLOTS * WORDS_PER_ID);
  /** Record index + 1 per slot; 0 marks an empty slot. */
  private recordIndexes = new Int32Array(INITIAL_SLOTS);
  private used = 0;
  private readonly probe = new Uint32Array(WORDS_PER_ID);

  get size(): number {
    return this.used;
  }

  /** The record index `id` was first read at, if it was. `id` is a canonical order id (lowercase, dashed). */
  get(id: string): number | undefined {
    readUuidWords(id, this.probe);
    const slot = this.findSlot(this.probe);
    const stored = this.recordIndexes[slot]!;
    return stored === 0 ? undefined : stored - 1;
  }

  /** Records that `id` was read at `recordIndex`; an id already recorded keeps its first index. */
  set(id: string, recordIndex: number): void {
    if (!Number.isInteger(recordIndex) || recordIndex < 0 || recordIndex >= 0x7fffffff) {
      throw new RangeError(`record index out of range: ${recordIndex}`);
    }
    readUuidWords(id, this.probe);
    const slot = this.findSlot(this.probe);
    if (this.recordIndexes[slot] !== 0) return;
    this.words.set(this.probe, slot * WORDS_PER_ID);
    this.recordIndexes[slot] = recordIndex + 1;
    this.used += 1;
    if (this.used > this.recordIndexes.length * MAX_LOAD) this.grow();
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
    const at = slot * WORDS_PER_ID;
    const words = this.words;
    return words[at] === key[0] && words[at + 1] === key[1] && words[at + 2] === key[2] && words[at + 3] === key[3];
  }

  private grow(): void {
    const oldWords = this.words;
    const oldIndexes = this.recordIndexes;
    this.words = new Uint32Array(oldWords.length * 2);
    this.recordIndexes = new Int32Array(oldIndexes.length * 2);
    const key = new Uint32Array(WORDS_PER_ID);
    for (let slot = 0; slot < oldIndexes.length; slot++) {
      if (oldIndexes[slot] === 0) continue;
      key.set(oldWords.subarray(slot * WORDS_PER_ID, (slot + 1) * WORDS_PER_ID));
      const target = this.findSlot(key);
      this.words.set(key, target * WORDS_PER_ID);
      this.recordIndexes[target] = oldIndexes[slot]!;
    }
  }
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The UUID's 16 bytes as four 32-bit words, into `out`. */
function readUuidWords(id: string, out: Uint32Array): void {
  if (!CANONICAL_UUID.test(id)) throw new Error(`not a canonical order id: ${JSON.stringify(id)}`);
  out[0] = Number.parseInt(id.slice(0, 8), 16);
  out[1] = Number.parseInt(id.slice(9, 13) + id.slice(14, 18), 16);
  out[2] = Number.parseInt(id.slice(19, 23) + id.slice(24, 28), 16);
  out[3] = Number.parseInt(id.slice(28, 36), 16);
}

/** All four words mixed (ids need not be random: fixtures count up), then murmur3's finalizer. */
function hashWords(key: Uint32Array): number {
  let hash =
    Math.imul(key[0]!, 0x85ebca6b) ^
    Math.imul(key[1]!, 0xc2b2ae35) ^
    Math.imul(key[2]!, 0x27d4eb2f) ^
    Math.imul(key[3]!, 0x165667b1);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

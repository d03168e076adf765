import { RecordIndexTable } from './record-index-table.js';

const WORDS_PER_ID = 4;

/**
 * The record index of each order id an import has read, so a repeated id is refused with the record it repeats
 * named. An id is a UUID, 16 bytes: 20 bytes a slot in a `RecordIndexTable`, outside V8's heap. A Map of id
 * strings cost about 100 bytes an id on the heap, a gigabyte for a 10,000,000-order snapshot.
 */
export class OrderIdIndex {
  private readonly table = new RecordIndexTable(WORDS_PER_ID);
  private readonly probe = new Uint32Array(WORDS_PER_ID);

  get size(): number {
    return this.table.size;
  }

  /** The record index `id` was first read at, if it was. `id` is a canonical order id (lowercase, dashed). */
  get(id: string): number | undefined {
    readUuidWords(id, this.probe);
    return this.table.get(this.probe);
  }

  /** Records that `id` was read at `recordIndex`; an id already recorded keeps its first index. */
  set(id: string, recordIndex: number): void {
    readUuidWords(id, this.probe);
    this.table.set(this.probe, recordIndex);
  }

  /** The id recorded at `recordIndex`, canonical; a scan of the whole table, for error messages. */
  idAt(recordIndex: number): string | undefined {
    const words = new Uint32Array(WORDS_PER_ID);
    if (!this.table.keyAt(recordIndex, words)) return undefined;
    const hex = Array.from(words, (word) => word.toString(16).padStart(8, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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

import { RecordIndexTable } from './record-index-table.js';

const WORDS_PER_ID = 4;
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The record index of each order id an import has read, so a repeated id is refused with the record it repeats
 * named. Keys are canonical order ids (lowercase, dashed): a UUID's 16 bytes, 20 bytes a slot. A Map of id
 * strings cost about 100 bytes an id on the heap, a gigabyte for a 10,000,000-order snapshot.
 */
export class OrderIdIndex extends RecordIndexTable {
  constructor() {
    super(WORDS_PER_ID, readUuidWords);
  }

  /** The id recorded at `recordIndex`, canonical; a scan of the whole table, for error messages. */
  idAt(recordIndex: number): string | undefined {
    const words = this.keyWordsAt(recordIndex);
    if (words === undefined) return undefined;
    const hex = Array.from(words, (word) => word.toString(16).padStart(8, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

/** The UUID's 16 bytes as four 32-bit words, into `out`. */
function readUuidWords(id: string, out: Uint32Array): void {
  if (!CANONICAL_UUID.test(id)) throw new Error(`not a canonical order id: ${JSON.stringify(id)}`);
  out[0] = Number.parseInt(id.slice(0, 8), 16);
  out[1] = Number.parseInt(id.slice(9, 13) + id.slice(14, 18), 16);
  out[2] = Number.parseInt(id.slice(19, 23) + id.slice(24, 28), 16);
  out[3] = Number.parseInt(id.slice(28, 36), 16);
}

/** How many keys one query looks up at most; the keys of a busier turn are split over several queries. */
export const MAX_KEYS_PER_QUERY = 256;

/** One kind of lookup by key, and the query that answers many keys of it at once. */
export interface BatchedRead<Key, Row, Answer> {
  /** The rows of all `keys` (distinct), each key's rows in the order its answer lists them. */
  readRows(keys: Key[]): Promise<Row[]>;
  keyOf(row: Row): Key;
  /** What one lookup returns from its key's rows; each lookup builds its own, so no two callers share one. */
  answer(rows: readonly Row[]): Answer;
}

interface Waiter<Answer> {
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * The lookups asked in one turn of the event loop, answered together at its end (`setImmediate`). A key lookup
 * costs each store more per statement than per row: the node-postgres client spends more CPU on each query
 * (Bind/Describe/Execute/Sync, the row description, a pool checkout) than on its rows, so PostgreSQL's share one
 * query; SQLite takes and drops its file locks and reads the WAL's index for each statement run on its own, so
 * SQLite's share one read transaction.
 */
export class BatchedReads<Key, Row, Answer> {
  private waiting = new Map<Key, Waiter<Answer>[]>();

  constructor(private readonly read: BatchedRead<Key, Row, Answer>) {}

  load(key: Key): Promise<Answer> {
    return new Promise((resolve, reject) => {
      // The query starts after this call returned, so it sees every write that had committed by then.
      if (this.waiting.size === 0) setImmediate(() => this.flush());
      const waiters = this.waiting.get(key);
      if (waiters === undefined) this.waiting.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
    });
  }

  private flush(): void {
    const lookups = [...this.waiting];
    this.waiting = new Map();
    for (let start = 0; start < lookups.length; start += MAX_KEYS_PER_QUERY) {
      void this.answerAll(lookups.slice(start, start + MAX_KEYS_PER_QUERY));
    }
  }

  private async answerAll(lookups: [Key, Waiter<Answer>[]][]): Promise<void> {
    const rowsByKey = new Map<Key, Row[]>();
    try {
      for (const row of await this.read.readRows(lookups.map(([key]) => key))) {
        const key = this.read.keyOf(row);
        const rows = rowsByKey.get(key);
        if (rows === undefined) rowsByKey.set(key, [row]);
        else rows.push(row);
      }
    } catch (error) {
      for (const [, waiters] of lookups) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    for (const [key, waiters] of lookups) {
      const rows = rowsByKey.get(key) ?? [];
      for (const waiter of waiters) {
        try {
          waiter.resolve(this.read.answer(rows));
        } catch (error) {
          waiter.reject(error);
        }
      }
    }
  }
}

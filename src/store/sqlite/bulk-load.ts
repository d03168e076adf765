import { availableParallelism } from 'node:os';
import type { Database } from 'better-sqlite3';
import type { OrderRecord } from '../../domain/order.js';
import type { StoreImportOptions } from '../store.js';
import type { StoredOrder, SqliteWrites } from './writes.js';

/** The page cache an import writes its rows through. */
export const IMPORT_CACHE_KIB = 512 * 1024;
/** The page cache for serving. */
export const SERVING_CACHE_KIB = 16 * 1024;
/**
 * The page cache while the dropped indexes are rebuilt. SQLite's sorter sorts runs as large as the page cache
 * in memory, as linked lists whose merging misses the CPU caches at every step: runs of 16 MiB, then merged
 * from temporary files, took 14-19 s for an index of 10,000,000 orders where runs of 512 MiB took 25-34 s.
 */
const INDEX_BUILD_CACHE_KIB = 16 * 1024;

export function setCacheSize(db: Database, kibibytes: number): void {
  db.pragma(`cache_size = -${kibibytes}`);
}

/**
 * An import's writes, inside the transaction the import holds open. Orders are appended in the order they come:
 * their internal ids grow with every insert, so each new order lands at the end of the orders table and of its
 * transactions and history.
 *
 * Into an empty orders table, the table's indexes are dropped and rebuilt once at the end: building an index
 * from a million rows is a sort, keeping it up to date is a million random B-tree inserts. DDL is part of the
 * transaction, so a rollback brings the indexes back as well. Without the index on ids, the ids this import
 * wrote are remembered here instead, so a record that repeats one still replaces the row written for it;
 * unless the caller promised distinct ids, when the unique index rebuilt at the end is what holds it to that.
 */
export class BulkLoad {
  /** Internal ids by order id, while the index on ids is dropped and ids may repeat. */
  private writtenIds: Map<string, number> | undefined;
  /** Emptied by `finish`: while it holds any, a lookup by id would read the whole table. */
  private readonly droppedIndexes: { name: string; sql: string }[];

  constructor(
    private readonly db: Database,
    private readonly writes: SqliteWrites,
    options: StoreImportOptions,
  ) {
    this.droppedIndexes = isOrdersTableEmpty(db) ? dropOrderIndexes(db) : [];
    // A million ids in a Map cost the import seconds of lookups and garbage collection.
    this.writtenIds = this.droppedIndexes.length > 0 && options.distinctOrderIds !== true ? new Map() : undefined;
  }

  writeOrders(orders: readonly OrderRecord[], at: number): void {
    for (const order of orders) {
      const stored = this.findStored(order.id);
      if (stored !== undefined) {
        this.writes.replaceOrder(stored, order, at);
        continue;
      }
      const internalId = this.writes.insertOrder(order, at);
      this.writtenIds?.set(order.id, internalId);
    }
  }

  /** Brings back the indexes dropped at the start; call before committing. Calling it again does nothing. */
  finish(): void {
    const indexes = this.droppedIndexes.splice(0);
    if (indexes.length > 0) withIndexBuildSettings(this.db, () => indexes.forEach(({ sql }) => this.db.exec(sql)));
    this.writtenIds = undefined;
  }

  private findStored(id: string): StoredOrder | undefined {
    if (this.droppedIndexes.length === 0) return this.writes.findStoredOrder(id);
    if (this.writtenIds === undefined) return undefined;
    const internalId = this.writtenIds.get(id);
    return internalId === undefined ? undefined : { internalId, state: this.writes.storedState(internalId) };
  }
}

/**
 * Runs `build` with the sorter's settings for index builds, then puts back the connection's own: a small page
 * cache (`INDEX_BUILD_CACHE_KIB`), and a worker thread per core, which sort and write out runs while the
 * connection's thread goes on scanning the table (the signature checkers, the import's other work by then,
 * run at a lower priority).
 */
function withIndexBuildSettings(db: Database, build: () => void): void {
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  const threads = db.pragma('threads', { simple: true }) as number;
  setCacheSize(db, INDEX_BUILD_CACHE_KIB);
  db.pragma(`threads = ${availableParallelism()}`);
  try {
    build();
  } finally {
    db.pragma(`threads = ${threads}`);
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

function isOrdersTableEmpty(db: Database): boolean {
  return db.prepare('SELECT NOT EXISTS (SELECT 1 FROM orders)').pluck().get() === 1;
}

function dropOrderIndexes(db: Database): { name: string; sql: string }[] {
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL")
    .all() as { name: string; sql: string }[];
  for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
  return indexes;
}

/**
 * Leaves WAL mode for the rollback journal while an import runs, when nothing else has the database open, and
 * returns what goes back to WAL. A commit in WAL mode writes every page into the log and the checkpoint after
 * it copies each again into the database; with the rollback journal each page is written once, into the
 * database (pages the import adds have no old content to journal). A million orders write over a gigabyte, so
 * this saves seconds. With other connections open (a server reading the database) the switch is refused at
 * once, and the import stays in WAL mode, where they go on reading while it runs.
 */
export function leaveWalWhileAlone(db: Database): () => void {
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return () => {};
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.pragma('journal_mode = DELETE');
  } catch {
    return () => {};
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
  // Should another connection open the database meanwhile, the switch back waits for it and may not happen;
  // every store opens its database in WAL mode again.
  return () => db.pragma('journal_mode = WAL');
}

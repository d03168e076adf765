import type { Database } from 'better-sqlite3';

/** The page cache an import works with: its inserts land all over the B-trees. */
export const IMPORT_CACHE_KIB = 512 * 1024;
/** The page cache for serving. */
export const SERVING_CACHE_KIB = 64 * 1024;

export function setCacheSize(db: Database, kibibytes: number): void {
  db.pragma(`cache_size = -${kibibytes}`);
}

/**
 * Inside an import's transaction, into an empty orders table: drops the table's secondary indexes
 * and returns what rebuilds them, from their own stored definitions, before the commit. Building an
 * index from a million rows at once is a sort; keeping it up to date row by row is a million random
 * B-tree inserts. DDL is part of the transaction, so a rollback brings the indexes back as well.
 */
export function dropOrderIndexesWhileEmpty(db: Database): () => void {
  const empty = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM orders)').pluck().get() === 1;
  if (!empty) return () => {};
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL")
    .all() as { name: string; sql: string }[];
  for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
  return () => {
    for (const { sql } of indexes) db.exec(sql);
  };
}

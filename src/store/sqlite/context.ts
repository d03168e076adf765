import type Database from 'better-sqlite3';
import type { OrderRecord } from '../../domain/order.js';
import { orderFromRow, type OrderRow } from '../order-rows.js';
import type { SqliteChangeFeed } from './change-feed.js';
import type { SqliteStatements } from './statements.js';
import type { SqliteWrites } from './writes.js';

/** What the SQLite store's role files share: one connection, its statements, and the import in progress. */
export interface SqliteContext {
  readonly db: Database.Database;
  readonly statements: SqliteStatements;
  readonly writes: SqliteWrites;
  readonly changes: SqliteChangeFeed;
  /** Set while an import holds the connection's transaction open; settles (never rejects) when it ends. */
  runningImport: Promise<void> | undefined;
}

export function readOrders(rows: unknown[]): OrderRecord[] {
  return (rows as OrderRow[]).map(orderFromRow);
}

/** Writes from outside an import wait for it, so a rollback of the import cannot take them along. */
export async function importSettled(context: SqliteContext): Promise<void> {
  while (context.runningImport !== undefined) await context.runningImport;
}

import type pg from 'pg';
import type { OrderRecord } from '../../domain/order.js';
import type { StoreChange } from '../change-feed.js';
import { orderFromRow, type OrderRow } from '../order-rows.js';
import { notifyChange, type PostgresChangeFeed } from './change-feed.js';
import { inTransaction } from './pool.js';
import type { NamedQuery } from './queries.js';

/** What the PostgreSQL store's role files share: the pool, the change feed, and how they query. */
export interface PostgresContext {
  readonly pool: pg.Pool;
  readonly changes: PostgresChangeFeed;
}

export async function rows<Row extends pg.QueryResultRow>(
  { pool }: PostgresContext,
  query: NamedQuery,
  values: unknown[] = [],
): Promise<Row[]> {
  return (await pool.query<Row>({ ...query, values })).rows;
}

/** Order reads come back as `OrderRow` arrays. */
export async function orderRows({ pool }: PostgresContext, query: NamedQuery, values: unknown[]): Promise<OrderRow[]> {
  return (await pool.query<OrderRow>({ ...query, values, rowMode: 'array' })).rows;
}

export async function orders(context: PostgresContext, query: NamedQuery, values: unknown[]): Promise<OrderRecord[]> {
  return (await orderRows(context, query, values)).map(orderFromRow);
}

/** One transaction for the write and its notification, which PostgreSQL sends only if it commits. */
export async function writeAndNotify(
  { pool, changes }: PostgresContext,
  change: StoreChange,
  write: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await write(client);
    await notifyChange(client, changes.channel, change);
  });
  changes.report(change);
}

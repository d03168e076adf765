import type pg from 'pg';
import type { ChainObservation } from '../../domain/chain-observations.js';
import type { ChainKind } from '../../domain/markets.js';
import type { OrderState } from '../../domain/states.js';
import type { StoreChange } from '../change-feed.js';
import {
  blockFromRow,
  OBSERVATION_COLUMNS,
  observationFromRow,
  observationValues,
  RECENT_BLOCKS_KEPT,
  type BlockRow,
  type ObservationRow,
} from '../chain-rows.js';
import { transactionListOf, transactionValues } from '../order-rows.js';
import type { ChainStep, ChainWatchState, ChainWatchStore } from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import { notifyChange } from './change-feed.js';
import { orders, writeAndNotify, type PostgresContext } from './context.js';
import { inTransaction, type Queryable } from './pool.js';
import { SELECT_ORDERS_OF_TICKERS_IN_STATES } from './queries.js';
import { transitionOrder, upsertChainViews } from './writes.js';

/** Thrown inside the step's transaction to roll it back when an order moved under the watcher. */
class OrderMovedMeanwhile extends Error {}

export async function getChainWatch(pool: pg.Pool, chain: ChainKind): Promise<ChainWatchState | undefined> {
  const cursor = await pool.query<{ start_height: number; height: number; hash: string }>(
    'SELECT start_height, height, hash FROM chain_cursors WHERE chain = $1',
    [chain],
  );
  const row = cursor.rows[0];
  if (row === undefined) return undefined;
  const recent = await pool.query<BlockRow>(
    'SELECT height, hash FROM chain_blocks WHERE chain = $1 ORDER BY height DESC LIMIT $2',
    [chain, RECENT_BLOCKS_KEPT],
  );
  return {
    startHeight: row.start_height,
    cursor: { height: row.height, hash: row.hash },
    recentBlocks: recent.rows.map(blockFromRow),
  };
}

export async function listChainObservations(
  pool: pg.Pool,
  chain: ChainKind,
  orderIds: readonly string[],
): Promise<ChainObservation[]> {
  const result = await pool.query<ObservationRow>(
    `SELECT block_hash, position, block_height, order_id, kind, tx_id, amount::text AS amount, output_index,
       refund_height, preimage, by_admin, funder, claimer, token, payment_hash
     FROM chain_observations WHERE chain = $1 AND order_id = ANY($2::text[]) ORDER BY block_height, position`,
    [chain, [...orderIds]],
  );
  return result.rows.map(observationFromRow);
}

const INSERT_OBSERVATION = `INSERT INTO chain_observations (${OBSERVATION_COLUMNS.join(', ')})
  VALUES (${OBSERVATION_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (chain, block_hash, position) DO NOTHING`;

export interface AppliedChainStep {
  readonly changes: readonly StoreChange[];
  /** The history sequence numbers of the step's moves, in order. */
  readonly sequences: readonly number[];
}

/** Resolves undefined, with nothing written, when an order moved meanwhile. */
export async function applyChainStep(
  pool: pg.Pool,
  channel: string,
  step: ChainStep,
): Promise<AppliedChainStep | undefined> {
  const changes: StoreChange[] = [
    { kind: 'configuration' },
    ...step.orders.map((update): StoreChange => ({ kind: 'orderMoved', orderId: update.orderId })),
  ];
  try {
    const sequences = await inTransaction(pool, async (client) => {
      const written = await writeStep(client, step);
      for (const change of changes) await notifyChange(client, channel, change);
      return written;
    });
    return { changes, sequences };
  } catch (error) {
    if (error instanceof OrderMovedMeanwhile) return undefined;
    throw error;
  }
}

async function writeStep(client: Queryable, step: ChainStep): Promise<number[]> {
  const { chain } = step;
  const sequences: number[] = [];
  if (step.dropAbove !== undefined) {
    const dropped = [chain, step.dropAbove];
    await client.query('DELETE FROM chain_observations WHERE chain = $1 AND block_height > $2', dropped);
    await client.query('DELETE FROM chain_blocks WHERE chain = $1 AND height > $2', dropped);
  }
  for (const observation of step.observations) {
    await client.query(INSERT_OBSERVATION, observationValues(chain, observation));
  }
  await client.query(
    `INSERT INTO chain_cursors (chain, start_height, height, hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain) DO UPDATE SET height = excluded.height, hash = excluded.hash`,
    [chain, step.startHeight, step.cursor.height, step.cursor.hash],
  );
  await client.query(
    `INSERT INTO chain_blocks (chain, height, hash) VALUES ($1, $2, $3)
     ON CONFLICT (chain, height) DO UPDATE SET hash = excluded.hash`,
    [chain, step.cursor.height, step.cursor.hash],
  );
  await client.query(
    `DELETE FROM chain_blocks WHERE chain = $1 AND height <
       (SELECT min(height) FROM (SELECT height FROM chain_blocks WHERE chain = $1 ORDER BY height DESC LIMIT $2) kept)`,
    [chain, RECENT_BLOCKS_KEPT],
  );
  await client.query('UPDATE chain_views SET block_height = $1 WHERE chain = $2', [step.cursor.height, chain]);
  for (const update of step.orders) {
    const stored = await client.query<{ state: OrderState }>('SELECT state FROM orders WHERE id = $1 FOR UPDATE', [
      update.orderId,
    ]);
    if (stored.rows[0]?.state !== update.expectedState) throw new OrderMovedMeanwhile();
    for (const move of update.moves) {
      assertTransitionAllowed(move);
      const sequence = await transitionOrder(client, move);
      if (sequence === undefined) throw new OrderMovedMeanwhile();
      sequences.push(sequence);
    }
    await client.query('DELETE FROM order_transactions WHERE order_id = $1', [update.orderId]);
    for (const [index, transaction] of update.transactions.entries()) {
      await client.query(
        `INSERT INTO order_transactions (order_id, seq, type, tx_id, amount, output_index, block_height)
         VALUES ($1, $2, $3, $4, $5::numeric, $6::int4, $7::int8)`,
        [update.orderId, index + 1, ...transactionValues(transaction)],
      );
    }
    await client.query(
      `UPDATE orders SET htlc_refundable_at_block_height = $1, payment_preimage = coalesce($2, payment_preimage),
         transactions = $4::json
       WHERE id = $3`,
      [
        update.refundableAtBlockHeight,
        update.paymentPreimage ?? null,
        update.orderId,
        transactionListOf(update.transactions),
      ],
    );
  }
  return sequences;
}

/** The chain watch role: the step's changes are reported once it has committed. */
export function postgresChainWatch(context: PostgresContext): ChainWatchStore {
  const { pool, changes } = context;
  return {
    getChainWatch: (chain) => getChainWatch(pool, chain),
    listChainObservations: (chain, orderIds) => listChainObservations(pool, chain, orderIds),
    listOrdersOfTickersInStates: (tickers, states) =>
      orders(context, SELECT_ORDERS_OF_TICKERS_IN_STATES, [[...states], [...tickers]]),
    async applyChainStep(step) {
      const applied = await applyChainStep(pool, changes.channel, step);
      if (applied === undefined) return undefined;
      for (const change of applied.changes) changes.report(change);
      return applied.sequences;
    },
    setChainViews: (chains) =>
      writeAndNotify(context, { kind: 'configuration' }, (client) => upsertChainViews(client, chains)),
  };
}

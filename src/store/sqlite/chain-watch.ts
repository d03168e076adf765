import type { Database } from 'better-sqlite3';
import type { ChainObservation } from '../../domain/chain-observations.js';
import type { ChainKind } from '../../domain/markets.js';
import type { OrderRecord } from '../../domain/order.js';
import type { OrderState } from '../../domain/states.js';
import {
  blockFromRow,
  OBSERVATION_COLUMNS,
  observationFromRow,
  observationValues,
  RECENT_BLOCKS_KEPT,
  type BlockRow,
  type ObservationRow,
} from '../chain-rows.js';
import { transactionValues } from '../order-rows.js';
import type { ChainStep, ChainWatchState, ChainWatchStore, StateTransition } from '../store.js';
import { assertTransitionAllowed } from '../transition-guard.js';
import { importSettled, readOrders, type SqliteContext } from './context.js';
import type { SqliteStatements } from './statements.js';

/** Thrown inside the step's transaction to roll it back when an order moved under the watcher. */
class OrderMovedMeanwhile extends Error {}

/** The chain watcher's reads and its one-transaction step, on SQLite. */
export function prepareChainWatch(
  db: Database,
  statements: SqliteStatements,
  transitionOrder: (transition: StateTransition) => number | undefined,
  readOrders: (rows: unknown[]) => OrderRecord[],
) {
  const selectCursor = db.prepare('SELECT start_height, height, hash FROM chain_cursors WHERE chain = ?');
  const selectRecent = db.prepare(`SELECT height, hash FROM chain_blocks WHERE chain = ? ORDER BY height DESC LIMIT ?`);
  const upsertCursor = db.prepare(
    `INSERT INTO chain_cursors (chain, start_height, height, hash) VALUES (?, ?, ?, ?)
     ON CONFLICT (chain) DO UPDATE SET height = excluded.height, hash = excluded.hash`,
  );
  const insertBlock = db.prepare('INSERT OR REPLACE INTO chain_blocks (chain, height, hash) VALUES (?, ?, ?)');
  const pruneBlocks = db.prepare(
    `DELETE FROM chain_blocks WHERE chain = @chain AND height < (SELECT min(height) FROM
       (SELECT height FROM chain_blocks WHERE chain = @chain ORDER BY height DESC LIMIT @kept))`,
  );
  const dropBlocks = db.prepare('DELETE FROM chain_blocks WHERE chain = ? AND height > ?');
  const dropObservations = db.prepare('DELETE FROM chain_observations WHERE chain = ? AND block_height > ?');
  const insertObservation = db.prepare(
    `INSERT OR IGNORE INTO chain_observations (${OBSERVATION_COLUMNS.join(', ')})
     VALUES (${OBSERVATION_COLUMNS.map(() => '?').join(', ')})`,
  );
  const selectObservations = db.prepare(
    `SELECT * FROM chain_observations WHERE chain = ? AND order_id IN (SELECT value FROM json_each(?))
     ORDER BY block_height, position`,
  );
  const setChainViewHeight = db.prepare('UPDATE chain_views SET block_height = ? WHERE chain = ?');
  const selectState = db.prepare('SELECT internal_id AS internalId, state FROM orders WHERE id = ?');
  const updateChainFields = db.prepare(
    `UPDATE orders SET htlc_refundable_at_block_height = ?, payment_preimage = coalesce(?, payment_preimage)
     WHERE internal_id = ?`,
  );
  const selectOrdersOfTickers = db.prepare(
    `SELECT id FROM orders WHERE state IN (SELECT value FROM json_each(?))
       AND onchain_ticker IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`,
  );

  const applyStep = db.transaction((step: ChainStep): number[] => {
    const { chain } = step;
    const sequences: number[] = [];
    if (step.dropAbove !== undefined) {
      dropObservations.run(chain, step.dropAbove);
      dropBlocks.run(chain, step.dropAbove);
    }
    for (const observation of step.observations) insertObservation.run(...observationValues(chain, observation));
    upsertCursor.run(chain, step.startHeight, step.cursor.height, step.cursor.hash);
    insertBlock.run(chain, step.cursor.height, step.cursor.hash);
    pruneBlocks.run({ chain, kept: RECENT_BLOCKS_KEPT });
    setChainViewHeight.run(step.cursor.height, chain);
    for (const update of step.orders) {
      const stored = selectState.get(update.orderId) as { internalId: number; state: OrderState } | undefined;
      if (stored?.state !== update.expectedState) throw new OrderMovedMeanwhile();
      for (const move of update.moves) {
        assertTransitionAllowed(move);
        const sequence = transitionOrder(move);
        if (sequence === undefined) throw new OrderMovedMeanwhile();
        sequences.push(sequence);
      }
      statements.deleteTransactions.run(stored.internalId);
      update.transactions.forEach((transaction, index) => {
        statements.insertTransaction.run(stored.internalId, index + 1, ...transactionValues(transaction));
      });
      statements.relistTransactions.run({ internalId: stored.internalId });
      updateChainFields.run(update.refundableAtBlockHeight, update.paymentPreimage ?? null, stored.internalId);
    }
    return sequences;
  });

  return {
    getChainWatch(chain: ChainKind): ChainWatchState | undefined {
      const cursor = selectCursor.get(chain) as { start_height: number; height: number; hash: string } | undefined;
      if (cursor === undefined) return undefined;
      const recent = selectRecent.all(chain, RECENT_BLOCKS_KEPT) as BlockRow[];
      return {
        startHeight: cursor.start_height,
        cursor: { height: cursor.height, hash: cursor.hash },
        recentBlocks: recent.map(blockFromRow),
      };
    },

    listChainObservations(chain: ChainKind, orderIds: readonly string[]): ChainObservation[] {
      const rows = selectObservations.all(chain, JSON.stringify(orderIds)) as ObservationRow[];
      return rows.map(observationFromRow);
    },

    listOrdersOfTickersInStates(tickers: readonly string[], states: readonly OrderState[]): OrderRecord[] {
      const ids = selectOrdersOfTickers.pluck().all(JSON.stringify(states), JSON.stringify(tickers)) as string[];
      return readOrders(ids.map((id) => statements.selectOrder.get(id)));
    },

    /** The moves' history sequence numbers; undefined, with nothing written, when an order moved meanwhile. */
    applyChainStep(step: ChainStep): number[] | undefined {
      try {
        return applyStep(step);
      } catch (error) {
        if (error instanceof OrderMovedMeanwhile) return undefined;
        throw error;
      }
    },
  };
}

export type SqliteChainWatch = ReturnType<typeof prepareChainWatch>;

/** The chain watch role: the step waits for an import and reports what it changed. */
export function sqliteChainWatch(context: SqliteContext): ChainWatchStore {
  const { db, statements, writes, changes } = context;
  const chainWatch = prepareChainWatch(db, statements, writes.transitionOrder, readOrders);
  return {
    getChainWatch: async (chain) => chainWatch.getChainWatch(chain),
    listChainObservations: async (chain, orderIds) => chainWatch.listChainObservations(chain, orderIds),
    listOrdersOfTickersInStates: async (tickers, states) => chainWatch.listOrdersOfTickersInStates(tickers, states),
    async applyChainStep(step) {
      await importSettled(context);
      const sequences = chainWatch.applyChainStep(step);
      if (sequences === undefined) return undefined;
      changes.report({ kind: 'configuration' });
      for (const update of step.orders) changes.report({ kind: 'orderMoved', orderId: update.orderId });
      return sequences;
    },
    async setChainViews(chains) {
      await importSettled(context);
      writes.upsertChainViews(chains);
      changes.report({ kind: 'configuration' });
    },
  };
}

import type { Database } from 'better-sqlite3';
import type { ChainViews, OrderRecord, OrderTransaction, ProviderRecord } from '../../domain/order.js';
import type { OrderState } from '../../domain/states.js';
import { chainViewValues, providerMarketValues } from '../configuration-rows.js';
import { orderValues, transactionValues } from '../order-rows.js';
import type { StateTransition, StoreConfiguration } from '../store.js';
import type { SqliteStatements } from './statements.js';

/**
 * The store's multi-statement writes, each one SQLite transaction (a savepoint when an import's transaction is
 * already open).
 */
export function prepareWrites(db: Database, statements: SqliteStatements) {
  const appendTransaction = (orderId: string, transaction: OrderTransaction) => {
    statements.appendTransaction.run(orderId, ...transactionValues(transaction), orderId);
  };

  const appendHistory = (orderId: string, state: OrderState, at: number) => {
    statements.appendHistory.run(orderId, state, at, orderId);
  };

  // A transaction seen again (typically now confirmed) updates its earlier record instead of counting twice.
  const recordTransaction = (orderId: string, transaction: OrderTransaction) => {
    const [type, txId, amount, outputIndex, blockHeight] = transactionValues(transaction);
    const updated = statements.updateSameTransaction.run({ orderId, type, txId, amount, outputIndex, blockHeight });
    if (updated.changes === 0) appendTransaction(orderId, transaction);
  };

  const upsertChainViews = db.transaction((chains: ChainViews) => {
    for (const row of chainViewValues(chains)) statements.upsertChainView.run(...row);
  });

  const upsertProvider = db.transaction((provider: ProviderRecord) => {
    statements.upsertProvider.run(provider.id, provider.active ? 1 : 0);
    statements.deleteProviderMarkets.run(provider.id);
    for (const row of providerMarketValues(provider)) statements.insertProviderMarket.run(provider.id, ...row);
  });

  return {
    createOrder: db.transaction((order: OrderRecord) => {
      statements.insertOrder.run(...orderValues(order));
      for (const transaction of order.transactions) appendTransaction(order.id, transaction);
      appendHistory(order.id, order.state, order.createdAt);
    }),

    // An import writes a million orders: each statement here runs once per row, with every sequence
    // number known up front instead of looked up.
    writeOrders: db.transaction((orders: readonly OrderRecord[], at: number) => {
      for (const order of orders) {
        const previousState = statements.selectOrderState.get(order.id) as string | undefined;
        if (previousState === undefined) {
          statements.insertOrder.run(...orderValues(order));
          statements.insertFirstHistory.run(order.id, order.state, at);
        } else {
          statements.upsertOrder.run(...orderValues(order));
          statements.deleteTransactions.run(order.id);
          if (previousState !== order.state) appendHistory(order.id, order.state, at);
        }
        order.transactions.forEach((transaction, index) => {
          statements.insertTransaction.run(order.id, index + 1, ...transactionValues(transaction));
        });
      }
    }),

    transitionOrder: db.transaction((transition: StateTransition): boolean => {
      const { orderId, from, to, at } = transition;
      const moved = statements.moveOrderState.run(to, transition.paymentPreimage ?? null, orderId, from);
      if (moved.changes === 0) return false;
      appendHistory(orderId, to, at);
      if (transition.transaction !== undefined) recordTransaction(orderId, transition.transaction);
      return true;
    }),

    upsertChainViews,
    upsertProvider,

    writeConfiguration: db.transaction((configuration: StoreConfiguration) => {
      statements.deleteMarkets.run();
      configuration.markets.forEach((market, position) => statements.insertMarket.run(position, market));
      statements.deleteChainViews.run();
      upsertChainViews(configuration.chains);
      for (const provider of configuration.providers) upsertProvider(provider);
    }),
  };
}

export type SqliteWrites = ReturnType<typeof prepareWrites>;

import type { CooperativeRefundSignature } from '../../domain/cooperative-refund.js';
import type { TokenAsset } from '../../domain/market-catalog.js';
import type { Database } from 'better-sqlite3';
import type { ChainViews, OrderRecord, OrderTransaction, ProviderRecord } from '../../domain/order.js';
import { LnswapError } from '../../domain/errors.js';
import { refusalOfNewOrder } from '../../domain/orders-per-invoice.js';
import type { OrderState } from '../../domain/states.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
import { chainViewValues, providerMarketValues, swapContractValues, tokenValues } from '../configuration-rows.js';
import { causeColumn } from '../history-rows.js';
import { storedOrderValues, transactionValues } from '../order-rows.js';
import type { StateTransition, StoreConfiguration } from '../store.js';
import type { SqliteStatements } from './statements.js';

/**
 * The store's multi-statement writes: each one SQLite transaction, but for the row writes an import makes
 * inside its own (bulk-load.ts).
 */
export function prepareWrites(db: Database, statements: SqliteStatements) {
  const insertTransactions = (internalId: number, transactions: readonly OrderTransaction[]) => {
    transactions.forEach((transaction, index) => {
      statements.insertTransaction.run(internalId, index + 1, ...transactionValues(transaction));
    });
  };

  // An import's rows carry no cause: a snapshot does not say why its orders are where they are.
  const appendHistory = (internalId: number, state: OrderState, at: number, cause?: TransitionCause): number => {
    const values = { internalId, state, at, cause: cause === undefined ? null : causeColumn(cause) };
    return statements.appendHistory.get(values) as number;
  };

  // A transaction seen again (typically now confirmed) updates its earlier record instead of counting twice.
  const recordTransaction = (internalId: number, transaction: OrderTransaction) => {
    const [type, txId, amount, outputIndex, blockHeight] = transactionValues(transaction);
    const values = { internalId, type, txId, amount, outputIndex, blockHeight };
    if (statements.updateSameTransaction.run(values).changes === 0) statements.appendTransaction.run(values);
    statements.relistTransactions.run({ internalId });
  };

  /** A new order's rows; its internal id is the next one SQLite hands out. Returns that id. */
  const insertOrder = (order: OrderRecord, at: number, cause?: TransitionCause): number => {
    const internalId = Number(statements.insertOrder.run(...storedOrderValues(order)).lastInsertRowid);
    statements.insertFirstHistory.run(internalId, order.state, at, cause === undefined ? null : causeColumn(cause));
    insertTransactions(internalId, order.transactions);
    return internalId;
  };

  /** Rewrites a stored order as `order` says; its history grows only when the state changes. */
  const replaceOrder = (stored: StoredOrder, order: OrderRecord, at: number) => {
    statements.replaceOrder.run(...storedOrderValues(order), stored.internalId);
    statements.deleteTransactions.run(stored.internalId);
    if (stored.state !== order.state) appendHistory(stored.internalId, order.state, at);
    insertTransactions(stored.internalId, order.transactions);
  };

  const insertCooperativeRefunds = (orderId: string, refunds: readonly CooperativeRefundSignature[]) => {
    for (const { funder, signature } of refunds) statements.insertCooperativeRefund.run(funder, signature, orderId);
  };

  const upsertChainViews = db.transaction((chains: ChainViews) => {
    for (const row of chainViewValues(chains)) statements.upsertChainView.run(...row);
    const contracts = swapContractValues(chains);
    for (const row of contracts.recorded) statements.upsertSwapContract.run(...row);
    for (const row of contracts.unrecorded) statements.addUnrecordedSwapContract.run(...row);
  });

  const upsertProvider = db.transaction((provider: ProviderRecord) => {
    statements.upsertProvider.run(provider.id, provider.active ? 1 : 0);
    statements.deleteProviderMarkets.run(provider.id);
    for (const row of providerMarketValues(provider)) statements.insertProviderMarket.run(provider.id, ...row);
  });

  return {
    // The payment hash's orders are read in the write's transaction: what it saw is what the insert is beside.
    createOrder: db.transaction((order: OrderRecord, cause: TransitionCause) => {
      const earlier = statements.selectStatesByPaymentHash.all(order.paymentHash) as OrderState[];
      const refusal = refusalOfNewOrder(order.state, earlier);
      if (refusal !== undefined) throw new LnswapError(refusal);
      insertOrder(order, order.createdAt, cause);
    }),

    // No db.transaction here: an import's writes run inside its own transaction, and a savepoint per batch
    // would copy every page the batch touches into a statement journal.
    insertOrder,
    replaceOrder,
    findStoredOrder: (id: string) => statements.selectStoredOrder.get(id) as StoredOrder | undefined,
    storedState: (internalId: number) => statements.selectStateByInternalId.get(internalId) as OrderState,

    transitionOrder: db.transaction((transition: StateTransition): number | undefined => {
      const { orderId, from, to, at } = transition;
      const internalId = statements.moveOrderState.get(to, transition.paymentPreimage ?? null, orderId, from) as
        number | undefined;
      if (internalId === undefined) return undefined;
      const sequence = appendHistory(internalId, to, at, transition.cause);
      if (transition.transaction !== undefined) recordTransaction(internalId, transition.transaction);
      insertCooperativeRefunds(orderId, transition.cooperativeRefunds ?? []);
      return sequence;
    }),

    recordCooperativeRefunds: db.transaction(insertCooperativeRefunds),

    upsertChainViews,
    upsertProvider,

    addToken: db.transaction((token: TokenAsset, market: string) => {
      statements.appendToken.run(token.ticker, token.network, token.address, token.decimals);
      statements.appendMarket.run(market);
    }),

    writeConfiguration: db.transaction((configuration: StoreConfiguration) => {
      statements.deleteMarkets.run();
      configuration.markets.forEach((market, position) => statements.insertMarket.run(position, market));
      statements.deleteTokens.run();
      for (const row of tokenValues(configuration.tokens)) statements.insertToken.run(...row);
      statements.deleteChainViews.run();
      upsertChainViews(configuration.chains);
      for (const provider of configuration.providers) upsertProvider(provider);
    }),
  };
}

/** What replacing an order needs to know of the row it replaces. */
export interface StoredOrder {
  readonly internalId: number;
  readonly state: OrderState;
}

export type SqliteWrites = ReturnType<typeof prepareWrites>;

import type { CooperativeRefundSignature } from '../../domain/cooperative-refund.js';
import type { ChainViews, OrderRecord, OrderTransaction, ProviderRecord } from '../../domain/order.js';
import { LnswapError } from '../../domain/errors.js';
import { refusalOfNewOrder } from '../../domain/orders-per-invoice.js';
import type { OrderState } from '../../domain/states.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
import { chainViewValues, providerMarketValues, swapContractValues, tokenValues } from '../configuration-rows.js';
import { causeColumn } from '../history-rows.js';
import { STORED_ORDER_COLUMNS, storedOrderValues, TRANSACTION_COLUMNS, transactionValues } from '../order-rows.js';
import type { StateTransition, StoreConfiguration } from '../store.js';
import type { Queryable } from './pool.js';
import {
  ADD_UNRECORDED_SWAP_CONTRACT,
  APPEND_HISTORY,
  APPEND_TRANSACTION,
  DELETE_CHAIN_VIEWS,
  DELETE_MARKETS,
  DELETE_TOKENS,
  DELETE_PROVIDER_MARKETS,
  DELETE_TRANSACTIONS,
  INSERT_COOPERATIVE_REFUNDS,
  INSERT_MARKETS,
  INSERT_TOKENS,
  INSERT_ORDERS,
  INSERT_PROVIDER_MARKETS,
  INSERT_TRANSACTIONS,
  RELIST_TRANSACTIONS,
  MOVE_ORDER_STATE,
  SELECT_ORDER_STATES_FOR_UPDATE,
  SELECT_STATES_BY_PAYMENT_HASH,
  UPDATE_SAME_TRANSACTION,
  UPSERT_CHAIN_VIEW,
  UPSERT_SWAP_CONTRACT,
  UPSERT_ORDERS,
  UPSERT_PROVIDER,
  type NamedQuery,
} from './queries.js';

// Keeps each statement's arrays, and so its message to the server, at a bounded size.
const ROWS_PER_STATEMENT = 2000;

type Row = readonly unknown[];

/** Turns rows into one array per column, the shape the unnest statements take. */
function columnsOf(rows: readonly Row[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) row.forEach((value, index) => columns[index]?.push(value));
  return columns;
}

async function insertRows(client: Queryable, query: NamedQuery, rows: readonly Row[], width: number): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    await client.query({ ...query, values: columnsOf(chunk, width) });
  }
}

/** Orders' transactions, numbered from 1: the orders have none stored yet. */
async function insertTransactions(client: Queryable, orders: readonly OrderRecord[]): Promise<void> {
  const rows = orders.flatMap((order) =>
    order.transactions.map((transaction, index) => [order.id, index + 1, ...transactionValues(transaction)]),
  );
  await insertRows(client, INSERT_TRANSACTIONS, rows, TRANSACTION_COLUMNS.length + 2);
}

interface HistoryEntry {
  readonly orderId: string;
  readonly state: string;
  readonly at: number;
  /** An import's entries have none: a snapshot does not say why its orders are where they are. */
  readonly cause?: TransitionCause;
}

/**
 * Numbers each order's entries within a statement, continuing after the seq the order already has. Resolves the
 * numbers given, in the order of `entries`.
 */
async function appendHistory(client: Queryable, entries: readonly HistoryEntry[]): Promise<number[]> {
  const sequences: number[] = [];
  for (let start = 0; start < entries.length; start += ROWS_PER_STATEMENT) {
    const ordinals = new Map<string, number>();
    const rows = entries.slice(start, start + ROWS_PER_STATEMENT).map(({ orderId, state, at, cause }) => {
      const ordinal = (ordinals.get(orderId) ?? 0) + 1;
      ordinals.set(orderId, ordinal);
      return [orderId, state, at, ordinal, cause === undefined ? null : causeColumn(cause)];
    });
    const appended = await client.query<{ seq: number }>({ ...APPEND_HISTORY, values: columnsOf(rows, 5) });
    sequences.push(...appended.rows.map((row) => row.seq));
  }
  return sequences;
}

/**
 * A new order, refused beside its payment hash's other orders as `refusalOfNewOrder` says, read in the same
 * transaction after the insert. Two instances inserting live orders of one payment hash at once: the unique index
 * of live orders refuses the second. A read before the insert would not do under READ COMMITTED: an order not yet
 * committed when it ran, committed and moved out of the live states before the insert, is invisible to it and no
 * longer held by the index (which waited for it, then found it not live); the read after the insert sees it.
 */
export async function createOrder(client: Queryable, order: OrderRecord, cause: TransitionCause): Promise<void> {
  await insertRows(client, INSERT_ORDERS, [storedOrderValues(order)], STORED_ORDER_COLUMNS.length);
  const stored = await client.query<{ id: string; state: OrderState }>({
    ...SELECT_STATES_BY_PAYMENT_HASH,
    values: [order.paymentHash],
  });
  const refusal = refusalOfNewOrder(
    order.state,
    stored.rows.filter((row) => row.id !== order.id).map((row) => row.state),
  );
  if (refusal !== undefined) throw new LnswapError(refusal);
  await insertTransactions(client, [order]);
  await appendHistory(client, [{ orderId: order.id, state: order.state, at: order.createdAt, cause }]);
}

/**
 * Inserts or replaces orders with their transactions. Each order whose state is new to the store is appended to
 * its history; within one batch a later record of the same id replaces an earlier one.
 */
export async function writeOrders(client: Queryable, orders: readonly OrderRecord[], at: number): Promise<void> {
  if (orders.length === 0) return;
  const ids = [...new Set(orders.map((order) => order.id))];
  const stored = await client.query<{ id: string; state: string }>({
    ...SELECT_ORDER_STATES_FOR_UPDATE,
    values: [ids],
  });
  const states = new Map(stored.rows.map((row) => [row.id, row.state]));
  const latest = new Map<string, OrderRecord>();
  const history: HistoryEntry[] = [];
  for (const order of orders) {
    latest.set(order.id, order);
    if (states.get(order.id) !== order.state) {
      history.push({ orderId: order.id, state: order.state, at });
      states.set(order.id, order.state);
    }
  }
  const replacements = [...latest.values()];
  await insertRows(client, UPSERT_ORDERS, replacements.map(storedOrderValues), STORED_ORDER_COLUMNS.length);
  await client.query({ ...DELETE_TRANSACTIONS, values: [ids] });
  await insertTransactions(client, replacements);
  await appendHistory(client, history);
}

// A transaction seen again (typically now confirmed) updates its earlier record instead of counting twice.
async function recordTransaction(client: Queryable, orderId: string, transaction: OrderTransaction): Promise<void> {
  const values = [orderId, ...transactionValues(transaction)];
  const updated = await client.query({ ...UPDATE_SAME_TRANSACTION, values });
  if (updated.rowCount === 0) await client.query({ ...APPEND_TRANSACTION, values });
  await client.query({ ...RELIST_TRANSACTIONS, values: [orderId] });
}

/** Compare-and-set on the order's state; call inside a transaction. Resolves the move's history sequence number. */
export async function transitionOrder(client: Queryable, transition: StateTransition): Promise<number | undefined> {
  const { orderId, from, to, at, cause } = transition;
  const moved = await client.query({
    ...MOVE_ORDER_STATE,
    values: [to, transition.paymentPreimage ?? null, orderId, from],
  });
  if (moved.rowCount === 0) return undefined;
  const [sequence] = await appendHistory(client, [{ orderId, state: to, at, cause }]);
  if (transition.transaction !== undefined) await recordTransaction(client, orderId, transition.transaction);
  await insertCooperativeRefunds(client, orderId, transition.cooperativeRefunds ?? []);
  return sequence;
}

/** A slot already signed keeps its first signature. */
export async function insertCooperativeRefunds(
  client: Queryable,
  orderId: string,
  refunds: readonly CooperativeRefundSignature[],
): Promise<void> {
  if (refunds.length === 0) return;
  await client.query({
    ...INSERT_COOPERATIVE_REFUNDS,
    values: [orderId, refunds.map(({ funder }) => funder), refunds.map(({ signature }) => signature)],
  });
}

export async function upsertChainViews(client: Queryable, chains: ChainViews): Promise<void> {
  for (const row of chainViewValues(chains)) await client.query({ ...UPSERT_CHAIN_VIEW, values: row });
  const contracts = swapContractValues(chains);
  for (const row of contracts.recorded) await client.query({ ...UPSERT_SWAP_CONTRACT, values: row });
  for (const row of contracts.unrecorded) await client.query({ ...ADD_UNRECORDED_SWAP_CONTRACT, values: row });
}

export async function upsertProvider(client: Queryable, provider: ProviderRecord): Promise<void> {
  await client.query({ ...UPSERT_PROVIDER, values: [provider.id, provider.active] });
  await client.query({ ...DELETE_PROVIDER_MARKETS, values: [provider.id] });
  const marketColumns = columnsOf(providerMarketValues(provider), 5);
  await client.query({ ...INSERT_PROVIDER_MARKETS, values: [provider.id, ...marketColumns] });
}

export async function writeConfiguration(client: Queryable, configuration: StoreConfiguration): Promise<void> {
  await client.query(DELETE_MARKETS);
  await client.query({
    ...INSERT_MARKETS,
    values: [configuration.markets.map((_, position) => position), [...configuration.markets]],
  });
  await client.query(DELETE_TOKENS);
  await client.query({ ...INSERT_TOKENS, values: columnsOf(tokenValues(configuration.tokens), 5) });
  await client.query(DELETE_CHAIN_VIEWS);
  await upsertChainViews(client, configuration.chains);
  for (const provider of configuration.providers) await upsertProvider(client, provider);
}

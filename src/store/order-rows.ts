import type { OrderRecord, OrderTransaction, TransactionType, Writable } from '../domain/order.js';
import type { OrderState } from '../domain/states.js';

/** Columns of `orders` in the order `orderValues` lists them. */
export const ORDER_COLUMNS = [
  'id',
  'market',
  'onchain_ticker',
  'invoice',
  'invoice_hash',
  'payment_hash',
  'created_at',
  'expires_at',
  'state',
  'amount',
  'pay_to_address',
  'payment_preimage',
  'refund_address',
  'htlc_redeem_script',
  'htlc_refundable_at_block_height',
] as const;

/**
 * Columns of `orders` as both stores keep them, in the order `storedOrderValues` lists them: the transaction list
 * also sits on the order's row (SQLite migration 6, PostgreSQL migration 6), written with it, so a read of an
 * order walks no second B-tree. `order_transactions` stays, for the writes that match a transaction by its id.
 * The winning provider and the claimer (migration 7 on both) come last, after the columns older schemas have.
 */
export const STORED_ORDER_COLUMNS = [...ORDER_COLUMNS, 'transactions', 'provider_id', 'claim_address'] as const;

/** Columns of `order_transactions` after `order_id` and `seq`, in the order `transactionValues` lists them. */
export const TRANSACTION_COLUMNS = ['type', 'tx_id', 'amount', 'output_index', 'block_height'] as const;

/**
 * What every order read selects: the order's columns and its `transactions`, a JSON array of
 * [type, tx_id, amount, output_index, block_height] in seq order, kept on the row (`transactionListOf`).
 * Rows come back as arrays in this order (`OrderRow`): a row object would cost its column names looked up and
 * its shape built again for every order read. Callers add the conditions.
 */
export const SELECT_ORDERS = `SELECT o.id, o.market, o.invoice, o.invoice_hash, o.payment_hash, o.created_at,
  o.expires_at, o.state, o.amount, o.pay_to_address, o.payment_preimage, o.refund_address, o.htlc_redeem_script,
  o.htlc_refundable_at_block_height, o.transactions, o.provider_id, o.claim_address FROM orders o`;

type TransactionTuple = [string, string, string | null, number | null, number | null];

export type OrderRow = [
  id: string,
  market: string,
  invoice: string,
  invoiceHash: string,
  paymentHash: string,
  createdAt: number,
  expiresAt: number,
  state: string,
  amount: string,
  payToAddress: string,
  paymentPreimage: string | null,
  refundAddress: string | null,
  htlcRedeemScript: string | null,
  htlcRefundableAtBlockHeight: number,
  /** JSON text from SQLite; already parsed by pg (a `json` column). */
  transactions: string | TransactionTuple[],
  providerId: string | null,
  claimAddress: string | null,
];

/** Markets are named `<ONCHAIN>_<OFFCHAIN>`; orders keep the on-chain part so lookups by ticker stay indexed. */
export function onchainTickerOf(market: string): string {
  const separator = market.indexOf('_');
  return separator === -1 ? market : market.slice(0, separator);
}

export function orderValues(order: OrderRecord): (string | number | null)[] {
  return [
    order.id,
    order.market,
    onchainTickerOf(order.market),
    order.invoice,
    order.invoiceHash,
    order.paymentHash,
    order.createdAt,
    order.expiresAt,
    order.state,
    order.amount.toString(),
    order.payToAddress,
    order.paymentPreimage ?? null,
    order.refundAddress ?? null,
    order.htlc.redeemScript ?? null,
    order.htlc.refundableAtBlockHeight,
  ];
}

/** `orderValues` followed by the order's transaction list, provider and claimer, as `STORED_ORDER_COLUMNS` name them. */
export function storedOrderValues(order: OrderRecord): (string | number | null)[] {
  return [
    ...orderValues(order),
    transactionListOf(order.transactions),
    order.providerId ?? null,
    order.claimAddress ?? null,
  ];
}

/** The `transactions` column of an order's row: what `orderFromRow` reads back. */
export function transactionListOf(transactions: readonly OrderTransaction[]): string {
  return JSON.stringify(transactions.map(transactionValues));
}

export function transactionValues(transaction: OrderTransaction): (string | number | null)[] {
  return [
    transaction.type,
    transaction.id,
    transaction.amount === undefined ? null : transaction.amount.toString(),
    transaction.outputIndex ?? null,
    transaction.blockHeight ?? null,
  ];
}

// Optional fields are set one by one, not spread in: a spread of a conditional literal takes V8's slow object
// clone on every order read, about a third of orderFromRow's time (BENCHMARKS.md).
function transactionFromTuple([type, id, amount, outputIndex, blockHeight]: TransactionTuple): OrderTransaction {
  const transaction: Writable<OrderTransaction> = { type: type as TransactionType, id };
  if (amount !== null) transaction.amount = BigInt(amount);
  if (outputIndex !== null) transaction.outputIndex = outputIndex;
  if (blockHeight !== null) transaction.blockHeight = blockHeight;
  return transaction;
}

export function orderFromRow([
  id,
  market,
  invoice,
  invoiceHash,
  paymentHash,
  createdAt,
  expiresAt,
  state,
  amount,
  payToAddress,
  paymentPreimage,
  refundAddress,
  redeemScript,
  refundableAtBlockHeight,
  transactionList,
  providerId,
  claimAddress,
]: OrderRow): OrderRecord {
  const transactions: TransactionTuple[] =
    typeof transactionList === 'string' ? (JSON.parse(transactionList) as TransactionTuple[]) : transactionList;
  const order: Writable<OrderRecord> = {
    id,
    market,
    invoice,
    invoiceHash,
    paymentHash,
    createdAt,
    expiresAt,
    state: state as OrderState,
    amount: BigInt(amount),
    payToAddress,
    htlc: redeemScript === null ? { refundableAtBlockHeight } : { redeemScript, refundableAtBlockHeight },
    transactions: transactions.map(transactionFromTuple),
  };
  if (paymentPreimage !== null) order.paymentPreimage = paymentPreimage;
  if (refundAddress !== null) order.refundAddress = refundAddress;
  if (providerId !== null) order.providerId = providerId;
  if (claimAddress !== null) order.claimAddress = claimAddress;
  return order;
}

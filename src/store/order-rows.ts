import type { OrderRecord, OrderTransaction, TransactionType } from '../domain/order.js';
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

/** Columns of `order_transactions` after `order_id` and `seq`, in the order `transactionValues` lists them. */
export const TRANSACTION_COLUMNS = ['type', 'tx_id', 'amount', 'output_index', 'block_height'] as const;

/**
 * What every order read selects from `orders o`, followed by a `transactions` column that each dialect builds
 * with a correlated subquery: a JSON array of [type, tx_id, amount, output_index, block_height] in seq order.
 * A correlated subquery always runs as one primary-key lookup per order, whatever the planner knows.
 */
export const ORDER_SELECT_LIST = `o.id, o.market, o.invoice, o.invoice_hash, o.payment_hash, o.created_at,
  o.expires_at, o.state, o.amount, o.pay_to_address, o.payment_preimage, o.refund_address, o.htlc_redeem_script,
  o.htlc_refundable_at_block_height`;

type TransactionTuple = [string, string, string | null, number | null, number | null];

export interface OrderRow {
  id: string;
  market: string;
  invoice: string;
  invoice_hash: string;
  payment_hash: string;
  created_at: number;
  expires_at: number;
  state: string;
  amount: string;
  pay_to_address: string;
  payment_preimage: string | null;
  refund_address: string | null;
  htlc_redeem_script: string | null;
  htlc_refundable_at_block_height: number;
  /** JSON text from SQLite; already parsed by pg. */
  transactions: string | TransactionTuple[];
}

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

export function transactionValues(transaction: OrderTransaction): (string | number | null)[] {
  return [
    transaction.type,
    transaction.id,
    transaction.amount === undefined ? null : transaction.amount.toString(),
    transaction.outputIndex ?? null,
    transaction.blockHeight ?? null,
  ];
}

function transactionFromTuple([type, id, amount, outputIndex, blockHeight]: TransactionTuple): OrderTransaction {
  return {
    type: type as TransactionType,
    id,
    ...(amount === null ? {} : { amount: BigInt(amount) }),
    ...(outputIndex === null ? {} : { outputIndex }),
    ...(blockHeight === null ? {} : { blockHeight }),
  };
}

export function orderFromRow(row: OrderRow): OrderRecord {
  const transactions: TransactionTuple[] =
    typeof row.transactions === 'string' ? (JSON.parse(row.transactions) as TransactionTuple[]) : row.transactions;
  return {
    id: row.id,
    market: row.market,
    invoice: row.invoice,
    invoiceHash: row.invoice_hash,
    paymentHash: row.payment_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    state: row.state as OrderState,
    amount: BigInt(row.amount),
    payToAddress: row.pay_to_address,
    ...(row.payment_preimage === null ? {} : { paymentPreimage: row.payment_preimage }),
    ...(row.refund_address === null ? {} : { refundAddress: row.refund_address }),
    htlc: {
      ...(row.htlc_redeem_script === null ? {} : { redeemScript: row.htlc_redeem_script }),
      refundableAtBlockHeight: row.htlc_refundable_at_block_height,
    },
    transactions: transactions.map(transactionFromTuple),
  };
}

import { parseDecimalAmount } from '../domain/amounts.js';
import { isBitcoinAddress } from '../domain/bitcoin.js';
import { isEthereumAddress } from '../domain/ethereum.js';
import { isHexBytes, isHexOfLength, isZeroXHex } from '../domain/hex.js';
import { preimageMatchesPaymentHash } from '../domain/invoice.js';
import type { MarketCatalog } from '../domain/market-catalog.js';
import type { Market } from '../domain/markets.js';
import type { HtlcTerms, OrderRecord, OrderTransaction, Writable } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { isValidProviderName } from '../domain/provider-names.js';
import { isOrderState, ORDER_STATES } from '../domain/states.js';
import {
  fail,
  readArray,
  readBoundedUnits,
  readNonNegativeInteger,
  readObject,
  readOptionalNonNegativeInteger,
  readOptionalString,
  readString,
  readTimestamp,
} from './fields.js';
import type { CheckedInvoice } from './invoice-checks.js';

const ORDER_FIELDS = new Set([
  'id',
  'market',
  'invoice',
  'createdAt',
  'expiryTimestamp',
  'state',
  'amount',
  'payToAddress',
  'paymentPreimage',
  'refundAddress',
  'provider',
  'claimer',
  'htlc',
  'transactions',
]);
const HTLC_FIELDS = new Set(['redeemScript', 'refundableAtBlockHeight']);
const TRANSACTION_FIELDS = new Set(['type', 'id', 'amount', 'outputIndex', 'blockHeight']);
/** PostgreSQL keeps an output index in a 32-bit signed integer; no Bitcoin transaction has nearly as many outputs. */
const MAX_OUTPUT_INDEX = 2 ** 31 - 1;

/** Said of an invoice that does not parse, and of one whose signature does not hold. */
export const INVOICE_NOT_SIGNED_BOLT11 = 'not a BOLT11 invoice with a valid signature';

export interface OrderValidationContext {
  /** Parses invoices; their signatures are checked apart, and a bad one reported by the caller. */
  readonly invoices: { check(invoice: string): CheckedInvoice };
  /** The known markets and those of the snapshot's `tokens`, which come before any order. */
  readonly catalog: MarketCatalog;
  /** Undefined while the snapshot's `markets` has not been read yet; the caller then checks later. */
  readonly offeredMarkets: ReadonlySet<string> | undefined;
}

/** The order id as the snapshot spells it, normalized, for naming a bad record; undefined if unusable. */
export function orderIdForMessages(value: unknown): string | undefined {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? normalizeOrderId(id) : undefined;
}

/**
 * Turns one parsed snapshot order into the store's record; throws FieldError at the first bad field.
 * The invoice's signature is the one check left to the caller.
 */
export function validateOrder(value: unknown, context: OrderValidationContext): OrderRecord {
  const order = readObject(value, '', ORDER_FIELDS);
  const id = normalizeOrderId(readString(order.id, 'id')) ?? fail('id', 'must be a UUID');
  const market = readMarket(order.market, context);

  const invoice = readString(order.invoice, 'invoice');
  const { read: decoded, invoiceHash } = context.invoices.check(invoice);
  if (decoded === undefined) fail('invoice', INVOICE_NOT_SIGNED_BOLT11);
  if (decoded.network !== market.network) {
    fail('invoice', `is a ${decoded.network} invoice but ${market.name} is a ${market.network} market`);
  }

  const createdAt = readTimestamp(order.createdAt, 'createdAt');
  const expiresAt = readTimestamp(order.expiryTimestamp, 'expiryTimestamp');
  if (expiresAt < createdAt) fail('expiryTimestamp', 'is before createdAt');

  const state = readString(order.state, 'state');
  if (!isOrderState(state)) fail('state', `not an order state (one of ${ORDER_STATES.join(', ')})`);

  const amount = readAmount(order.amount, 'amount', market);
  const payToAddress = readAddress(order.payToAddress, 'payToAddress', market);

  const paymentPreimage = readOptionalString(order.paymentPreimage, 'paymentPreimage');
  if (paymentPreimage !== undefined) {
    if (!isHexOfLength(paymentPreimage, 64)) fail('paymentPreimage', 'must be 64 hex digits');
    if (!preimageMatchesPaymentHash(paymentPreimage, decoded.paymentHash)) {
      fail('paymentPreimage', "does not hash to the invoice's payment hash");
    }
  }

  const refundAddress = readOptionalString(order.refundAddress, 'refundAddress');
  if (refundAddress !== undefined) {
    if (market.onchain.chain !== 'bitcoin') fail('refundAddress', 'only Bitcoin-style markets have a refund address');
    readAddress(refundAddress, 'refundAddress', market);
  }

  const provider = readOptionalString(order.provider, 'provider');
  if (provider !== undefined && !isValidProviderName(provider)) {
    fail('provider', 'not a provider name (1 to 64 letters, digits, dots, dashes or underscores)');
  }

  const claimer = readOptionalString(order.claimer, 'claimer');
  if (claimer !== undefined) {
    if (market.onchain.chain !== 'ethereum') fail('claimer', 'only Ethereum-style markets have a claimer');
    if (!isEthereumAddress(claimer)) fail('claimer', 'not an Ethereum address');
  }

  // Built a field at a time instead of with spreads for the optional fields, which cost about a
  // microsecond an order; the fields keep their order.
  const record: Writable<Omit<OrderRecord, 'htlc' | 'transactions'>> = {
    id,
    market: market.name,
    invoice,
    invoiceHash,
    paymentHash: decoded.paymentHash,
    createdAt,
    expiresAt,
    state,
    amount,
    payToAddress,
  };
  if (paymentPreimage !== undefined) record.paymentPreimage = paymentPreimage.toLowerCase();
  if (refundAddress !== undefined) record.refundAddress = refundAddress;
  if (provider !== undefined) record.providerId = provider;
  if (claimer !== undefined) record.claimAddress = claimer.toLowerCase();
  const htlc = readHtlc(order.htlc, market);
  const transactions = readTransactions(order.transactions, market);
  return Object.assign(record, { htlc, transactions });
}

function readMarket(value: unknown, { catalog, offeredMarkets }: OrderValidationContext): Market {
  const market = catalog.findMarket(readString(value, 'market'));
  if (market === undefined) fail('market', 'not a known market');
  if (offeredMarkets !== undefined && !offeredMarkets.has(market.name)) {
    fail('market', "not one of the snapshot's markets");
  }
  return market;
}

function readAmount(value: unknown, field: string, market: Market): bigint {
  const { ticker, decimals } = market.onchain;
  const amount = readBoundedUnits(readString(value, field), field, (text) => parseDecimalAmount(text, decimals));
  if (amount === undefined) fail(field, `must be a decimal amount of ${ticker} with at most ${decimals} decimals`);
  if (amount === 0n) fail(field, 'must be more than zero');
  return amount;
}

function readAddress(value: unknown, field: string, market: Market): string {
  const address = readString(value, field);
  if (market.onchain.chain === 'bitcoin') {
    if (!isBitcoinAddress(address, market.network)) fail(field, `not a ${market.network} Bitcoin address`);
  } else if (!isEthereumAddress(address)) {
    fail(field, 'not an Ethereum address');
  }
  return address;
}

function readHtlc(value: unknown, market: Market): HtlcTerms {
  const htlc = readObject(value, 'htlc', HTLC_FIELDS);
  const redeemScript = readOptionalString(htlc.redeemScript, 'htlc.redeemScript');
  const refundableAtBlockHeight = readNonNegativeInteger(htlc.refundableAtBlockHeight, 'htlc.refundableAtBlockHeight');
  if (market.onchain.chain === 'ethereum') {
    if (redeemScript !== undefined) fail('htlc.redeemScript', 'only Bitcoin-style markets have a redeem script');
    return { refundableAtBlockHeight };
  }
  if (redeemScript === undefined) fail('htlc.redeemScript', `required on the Bitcoin-style market ${market.name}`);
  if (!isHexBytes(redeemScript)) fail('htlc.redeemScript', 'must be non-empty hex');
  return { redeemScript: redeemScript.toLowerCase(), refundableAtBlockHeight };
}

function readTransactions(value: unknown, market: Market): OrderTransaction[] {
  const seen = new Map<string, number>();
  return readArray(value, 'transactions').map((entry, index) => {
    const field = `transactions[${index}]`;
    const transaction = readTransaction(entry, field, market);
    const identity = `${transaction.type} ${transaction.id} ${transaction.outputIndex ?? ''}`;
    const earlier = seen.get(identity);
    if (earlier !== undefined) fail(field, `repeats transactions[${earlier}]`);
    seen.set(identity, index);
    return transaction;
  });
}

function readTransaction(value: unknown, field: string, market: Market): OrderTransaction {
  const transaction = readObject(value, field, TRANSACTION_FIELDS);
  const type = readString(transaction.type, `${field}.type`);
  if (type !== 'FUND' && type !== 'REFUND') fail(`${field}.type`, 'must be FUND or REFUND');
  const isBitcoin = market.onchain.chain === 'bitcoin';

  const id = readString(transaction.id, `${field}.id`);
  if (isBitcoin && !isHexOfLength(id, 64)) fail(`${field}.id`, 'must be a Bitcoin txid (64 hex digits)');
  if (!isBitcoin && !isZeroXHex(id, 64)) {
    fail(`${field}.id`, 'must be an Ethereum transaction hash (0x and 64 hex digits)');
  }

  let amount: bigint | undefined;
  if (type === 'FUND') amount = readAmount(transaction.amount, `${field}.amount`, market);
  else if (transaction.amount !== undefined) fail(`${field}.amount`, 'only FUND transactions carry an amount');

  let outputIndex: number | undefined;
  if (!isBitcoin) {
    if (transaction.outputIndex !== undefined) {
      fail(`${field}.outputIndex`, 'Ethereum transactions have no output index');
    }
  } else if (type === 'FUND') {
    outputIndex = readNonNegativeInteger(transaction.outputIndex, `${field}.outputIndex`);
    if (outputIndex > MAX_OUTPUT_INDEX) fail(`${field}.outputIndex`, `must be at most ${MAX_OUTPUT_INDEX}`);
  } else if (transaction.outputIndex !== undefined) {
    fail(`${field}.outputIndex`, 'only FUND transactions carry an output index');
  }

  const blockHeight = readOptionalNonNegativeInteger(transaction.blockHeight, `${field}.blockHeight`);
  // Optional fields added one at a time, as in validateOrder, in the same order as ever.
  const read: Writable<OrderTransaction> = { type, id: id.toLowerCase() };
  if (amount !== undefined) read.amount = amount;
  if (outputIndex !== undefined) read.outputIndex = outputIndex;
  if (blockHeight !== undefined) read.blockHeight = blockHeight;
  return read;
}

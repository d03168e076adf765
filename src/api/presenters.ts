/**
 * Store records and derivations as the wire shows them: amounts as decimal strings in the asset's
 * units, times as ISO 8601 with milliseconds, counts and satoshis as JSON numbers.
 */
import { formatFixedPoint, formatWholeUnits } from '../domain/amounts.js';
import type { FundingDetails } from '../domain/funding.js';
import type { Market } from '../domain/markets.js';
import type { OrderRecord, TransactionType } from '../domain/order.js';
import type { RefundDerivation } from '../domain/refund.js';
import type { MarketRequirements } from '../domain/requirements.js';
import type { OrderState } from '../domain/states.js';

export interface MarketView {
  readonly onchainTicker: string;
  readonly offchainTicker: string;
  readonly market: string;
}

export interface MarketRequirementsView {
  readonly market: string;
  readonly payReq: {
    readonly minExpirationSeconds: string;
    readonly minBaseUnits: string;
    readonly maxBaseUnits: string;
  };
}

export interface OrderSummaryView {
  readonly id: string;
  readonly market: string;
  readonly onchainTicker: string;
  readonly createdAt: string;
  readonly state: OrderState;
  readonly payToAddress: string;
  readonly amount: string;
  readonly amountPaid: string;
  readonly expiryTimestamp: string;
}

export interface OrderView extends OrderSummaryView {
  readonly invoice: string;
  readonly paymentHash: string;
  readonly paymentPreimage?: string;
}

export interface TransactionView {
  readonly type: TransactionType;
  readonly id: string;
}

export interface FundingDetailsView {
  readonly orderId: string;
  readonly expiryTimestampMs: number;
  readonly amount: string;
  readonly details:
    | { readonly redeemScript: string; readonly payToAddress: string; readonly refundableAtBlockHeight: number }
    | { readonly unsignedFundingTx: { readonly to: string; readonly data: string; readonly value: string } };
}

export interface RefundView {
  readonly market: string;
  readonly type: 'TimelockRefund' | 'AdminRefund';
  readonly state: OrderState;
  readonly blocksRemaining?: number;
  readonly refundableAtBlockHeight?: number;
  readonly refundableBalance: string;
  readonly details:
    | {
        readonly refundAddress?: string;
        readonly redeemScript: string;
        readonly currentBlockHeight: number;
        readonly feeTokensPerVirtualByte: number;
        readonly utxos: readonly { readonly txId: string; readonly index: number; readonly tokens: number }[];
      }
    | { readonly to: string; readonly data: string };
}

export function presentMarket(market: Market): MarketView {
  return { onchainTicker: market.onchain.ticker, offchainTicker: market.offchainTicker, market: market.name };
}

export function presentRequirements({ market, payReq }: MarketRequirements): MarketRequirementsView {
  return {
    market,
    payReq: {
      minExpirationSeconds: payReq.minExpirationSeconds.toString(),
      minBaseUnits: payReq.minBaseUnits.toString(),
      maxBaseUnits: payReq.maxBaseUnits.toString(),
    },
  };
}

function isoTimestamp(msSinceEpoch: number): string {
  return new Date(msSinceEpoch).toISOString();
}

/** What the order's FUND transactions brought in, seen in the mempool or confirmed. */
function amountPaid(order: OrderRecord): bigint {
  return order.transactions.reduce(
    (sum, transaction) => (transaction.type === 'FUND' ? sum + (transaction.amount ?? 0n) : sum),
    0n,
  );
}

export function presentOrderSummary(order: OrderRecord, market: Market): OrderSummaryView {
  const decimals = market.onchain.decimals;
  return {
    id: order.id,
    market: market.name,
    onchainTicker: market.onchain.ticker,
    createdAt: isoTimestamp(order.createdAt),
    state: order.state,
    payToAddress: order.payToAddress,
    amount: formatWholeUnits(order.amount, decimals),
    amountPaid: formatWholeUnits(amountPaid(order), decimals),
    expiryTimestamp: isoTimestamp(order.expiresAt),
  };
}

export function presentOrder(order: OrderRecord, market: Market): OrderView {
  const view: OrderView = {
    ...presentOrderSummary(order, market),
    invoice: order.invoice,
    paymentHash: order.paymentHash,
  };
  return order.paymentPreimage === undefined ? view : { ...view, paymentPreimage: order.paymentPreimage };
}

export function presentTransactions(order: OrderRecord): TransactionView[] {
  return order.transactions.map(({ type, id }) => ({ type, id }));
}

/** Satoshi amounts go out as JSON numbers; refuse to round one rather than send a wrong amount. */
function exactNumber(value: bigint): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`${value} cannot be sent exactly as a JSON number`);
  return number;
}

export function presentFundingDetails(funding: FundingDetails, market: Market): FundingDetailsView {
  const { details } = funding;
  return {
    orderId: funding.orderId,
    expiryTimestampMs: funding.expiryTimestampMs,
    amount: formatFixedPoint(funding.amount, market.onchain.decimals),
    details:
      'unsignedFundingTx' in details
        ? {
            unsignedFundingTx: {
              to: details.unsignedFundingTx.to,
              data: details.unsignedFundingTx.data,
              value: details.unsignedFundingTx.value.toString(),
            },
          }
        : {
            redeemScript: details.redeemScript,
            payToAddress: details.payToAddress,
            refundableAtBlockHeight: details.refundableAtBlockHeight,
          },
  };
}

export function presentRefund(refund: RefundDerivation, market: Market): RefundView {
  const { details } = refund;
  return {
    market: market.name,
    type: refund.type,
    state: refund.state,
    blocksRemaining: refund.blocksRemaining,
    refundableAtBlockHeight: refund.refundableAtBlockHeight,
    refundableBalance: formatWholeUnits(refund.refundableBalance, market.onchain.decimals),
    details:
      'to' in details
        ? { to: details.to, data: details.data }
        : {
            refundAddress: details.refundAddress,
            redeemScript: details.redeemScript,
            currentBlockHeight: details.currentBlockHeight,
            feeTokensPerVirtualByte: details.feeTokensPerVirtualByte,
            utxos: details.utxos.map((utxo) => ({ txId: utxo.txId, index: utxo.index, tokens: exactNumber(utxo.tokens) })),
          },
  };
}

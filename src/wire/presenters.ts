/**
 * Store records and derivations as the wire shows them, over HTTP and socket.io alike, in the shapes
 * src/wire/response-shapes.ts defines: amounts as decimal strings in the asset's
 * units, times as ISO 8601 with milliseconds, counts and satoshis as JSON numbers.
 */
import { formatFixedPoint, formatWholeUnits } from '../domain/amounts.js';
import type { EthereumFundingDetails, FundingDetails, UnsignedEthereumTx } from '../domain/funding.js';
import type { Market } from '../domain/markets.js';
import type { ChainViews, OrderRecord, StateChange } from '../domain/order.js';
import type { TransitionCause } from '../domain/transition-cause.js';
import type { BitcoinRefundDetails, RefundDerivation } from '../domain/refund.js';
import type { MarketRequirements } from '../domain/requirements.js';
import { isoTimestamp } from './iso-timestamp.js';
import type {
  FundingDetailsView,
  MarketRequirementsView,
  MarketView,
  OrderHistoryView,
  OrderSummaryView,
  OrderView,
  RefundView,
  TransactionView,
} from './response-shapes.js';

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

// One literal, the summary's fields written out again: spreading the summary into a larger object took V8's
// slow path, half the presenter's time, on every uncached answer about an order.
export function presentOrder(order: OrderRecord, market: Market): OrderView {
  const decimals = market.onchain.decimals;
  const view: OrderView = {
    id: order.id,
    market: market.name,
    onchainTicker: market.onchain.ticker,
    createdAt: isoTimestamp(order.createdAt),
    state: order.state,
    payToAddress: order.payToAddress,
    amount: formatWholeUnits(order.amount, decimals),
    amountPaid: formatWholeUnits(amountPaid(order), decimals),
    expiryTimestamp: isoTimestamp(order.expiresAt),
    invoice: order.invoice,
    paymentHash: order.paymentHash,
  };
  if (order.paymentPreimage !== undefined) view.paymentPreimage = order.paymentPreimage;
  return view;
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
        ? presentEthereumFundingDetails(details)
        : {
            redeemScript: details.redeemScript,
            payToAddress: details.payToAddress,
            refundableAtBlockHeight: details.refundableAtBlockHeight,
          },
  };
}

function presentEthereumTx(transaction: UnsignedEthereumTx): { to: string; data: string; value: string } {
  return { to: transaction.to, data: transaction.data, value: transaction.value.toString() };
}

function presentEthereumFundingDetails(details: EthereumFundingDetails): {
  unsignedFundingTx: ReturnType<typeof presentEthereumTx>;
  unsignedApprovalTx?: ReturnType<typeof presentEthereumTx>;
} {
  const unsignedFundingTx = presentEthereumTx(details.unsignedFundingTx);
  return details.unsignedApprovalTx === undefined
    ? { unsignedFundingTx }
    : { unsignedFundingTx, unsignedApprovalTx: presentEthereumTx(details.unsignedApprovalTx) };
}

/**
 * Fields a refund may lack are left out, not set to undefined: the serializer picks the shape's
 * branch that has exactly the fields present. Each shape is one literal: spreading optional fields in
 * took V8's slow object clone on every refund answer.
 */
export function presentRefund(refund: RefundDerivation, market: Market): RefundView {
  const { type, state, details, blocksRemaining, refundableAtBlockHeight } = refund;
  const refundableBalance = formatWholeUnits(refund.refundableBalance, market.onchain.decimals);
  const detailsView = 'to' in details ? { to: details.to, data: details.data } : presentBitcoinRefundDetails(details);
  return blocksRemaining === undefined || refundableAtBlockHeight === undefined
    ? { market: market.name, type, state, refundableBalance, details: detailsView }
    : {
        market: market.name,
        type,
        state,
        blocksRemaining,
        refundableAtBlockHeight,
        refundableBalance,
        details: detailsView,
      };
}

function presentBitcoinRefundDetails(details: BitcoinRefundDetails): RefundView['details'] {
  const { refundAddress, redeemScript, currentBlockHeight, feeTokensPerVirtualByte } = details;
  const utxos = details.utxos.map((utxo) => ({ txId: utxo.txId, index: utxo.index, tokens: exactNumber(utxo.tokens) }));
  return refundAddress === undefined
    ? { redeemScript, currentBlockHeight, feeTokensPerVirtualByte, utxos }
    : { refundAddress, redeemScript, currentBlockHeight, feeTokensPerVirtualByte, utxos };
}

/**
 * The cause as the public may read it: the request id stays in the operator's logs, since whoever knows an
 * order id need not be whoever asked for the quote.
 */
function presentCause(cause: TransitionCause): NonNullable<OrderHistoryView['states'][number]['cause']> {
  return {
    source: cause.source,
    reason: cause.reason,
    ...(cause.chain === undefined ? {} : { chain: cause.chain }),
    ...(cause.txId === undefined ? {} : { txId: cause.txId }),
    ...(cause.blockHeight === undefined ? {} : { blockHeight: cause.blockHeight }),
    ...(cause.blockHash === undefined ? {} : { blockHash: cause.blockHash }),
  };
}

export interface OrderHistoryParts {
  readonly order: OrderRecord;
  readonly market: Market;
  /** The order's history rows with their sequence numbers, oldest first. */
  readonly history: readonly (StateChange & { readonly sequence: number })[];
  readonly chains: ChainViews;
  readonly ethereumChainId?: number;
}

export function presentOrderHistory({
  order,
  market,
  history,
  chains,
  ethereumChainId,
}: OrderHistoryParts): OrderHistoryView {
  const chainHeight = chains[market.onchain.chain]?.blockHeight;
  const { ticker, chain, network, decimals, tokenAddress } = market.onchain;
  return {
    orderId: order.id,
    asset:
      tokenAddress === undefined
        ? { ticker, chain, network, decimals }
        : { ticker, chain, network, decimals, tokenAddress },
    states: history.map(({ sequence, state, at, cause }) => ({
      sequence,
      state,
      at: isoTimestamp(at),
      ...(cause === undefined ? {} : { cause: presentCause(cause) }),
    })),
    transactions: order.transactions.map(({ type, id, blockHeight }) => ({
      type,
      id,
      ...(blockHeight === undefined ? {} : { blockHeight }),
    })),
    ...(chainHeight === undefined ? {} : { chainHeight }),
    ...(ethereumChainId === undefined || market.onchain.chain !== 'ethereum' ? {} : { ethereumChainId }),
  };
}

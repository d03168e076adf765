import { formatFixedPoint, parseBaseUnits, parseDecimalAmount } from '../domain/amounts.js';
import { htlcPayToAddresses, parseHtlcRedeemScript, refundPublicKeyHashOfAddress } from '../domain/bitcoin.js';
import { LnswapError } from '../domain/errors.js';
import { encodeFundCalldata, ZERO_ADDRESS } from '../domain/ethereum.js';
import type { Market } from '../domain/markets.js';
import type { ChainViews, HtlcTerms } from '../domain/order.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import type { EngineOptions } from './options.js';
import { isPlainObject } from './payload-shapes.js';

/** What the service asked the providers, and what it needs to judge their answers. */
export interface QuoteSolicitation {
  readonly orderId: string;
  readonly market: Market;
  readonly paymentHash: string;
  readonly refundAddress?: string;
  /** Quotes received after this instant are refused. */
  readonly requestExpiryTimestampMs: number;
  readonly chains: ChainViews;
}

/** A maker quote the service can prove leads to a refundable HTLC. */
export interface VerifiedQuote {
  readonly amount: bigint;
  readonly expiresAt: number;
  readonly payToAddress: string;
  readonly htlc: HtlcTerms;
}

export type QuoteBounds = Pick<
  EngineOptions,
  'minFundWindowMs' | 'maxFundWindowMs' | 'minTimelockBlocks' | 'maxTimelockBlocks' | 'ethereumRefundDelayBlocks'
>;

interface QuoteFields {
  quoteExpiryTimestampMs: number;
  amount?: string;
  details: Record<string, unknown>;
}

/**
 * Verifies `{ orderId, quoteExpiryTimestampMs, amount?, details }` against the solicitation.
 * Throws LnswapError with the first reason the quote cannot win.
 */
export function verifyMakerQuote(
  payload: unknown,
  solicitation: QuoteSolicitation,
  bounds: QuoteBounds,
  receivedAt: number,
): VerifiedQuote {
  const fields = readFields(payload, solicitation.orderId);
  if (receivedAt > solicitation.requestExpiryTimestampMs) throw new LnswapError('QuoteSubmittedTooLate');

  const earliestExpiry = solicitation.requestExpiryTimestampMs + bounds.minFundWindowMs;
  const latestExpiry = solicitation.requestExpiryTimestampMs + bounds.maxFundWindowMs;
  if (fields.quoteExpiryTimestampMs < earliestExpiry || fields.quoteExpiryTimestampMs > latestExpiry) {
    throw new LnswapError('QuoteExpiryIsOutOfBounds');
  }

  const funding =
    solicitation.market.onchain.chain === 'bitcoin'
      ? verifyBitcoinFunding(fields, solicitation, bounds)
      : verifyEthereumFunding(fields, solicitation, bounds);
  return { ...funding, expiresAt: fields.quoteExpiryTimestampMs };
}

function readFields(payload: unknown, expectedOrderId: string): QuoteFields {
  if (!isPlainObject(payload)) throw new LnswapError('InvalidOrMissingQuoteFields');
  const { orderId, quoteExpiryTimestampMs, amount, details } = payload;
  const validShape =
    typeof orderId === 'string' &&
    normalizeOrderId(orderId) === expectedOrderId &&
    Number.isSafeInteger(quoteExpiryTimestampMs) &&
    (amount === undefined || typeof amount === 'string') &&
    isPlainObject(details);
  if (!validShape) throw new LnswapError('InvalidOrMissingQuoteFields');
  return {
    quoteExpiryTimestampMs: quoteExpiryTimestampMs as number,
    ...(amount === undefined ? {} : { amount }),
    details,
  };
}

/**
 * Only the fixed-point spelling with all of the asset's decimals is accepted, because the user's
 * quote carries the maker's amount unchanged and must equal the order's funding details.
 */
function readAmount(amount: string, market: Market): bigint {
  const decimals = market.onchain.decimals;
  const baseUnits = parseDecimalAmount(amount, decimals);
  if (baseUnits === undefined || baseUnits === 0n || formatFixedPoint(baseUnits, decimals) !== amount) {
    throw new LnswapError('InvalidOrMissingQuoteFields');
  }
  return baseUnits;
}

function verifyBitcoinFunding(
  fields: QuoteFields,
  solicitation: QuoteSolicitation,
  bounds: QuoteBounds,
): Omit<VerifiedQuote, 'expiresAt'> {
  const { redeemScript, payToAddress, refundableAtBlockHeight } = fields.details;
  if (
    fields.amount === undefined ||
    typeof redeemScript !== 'string' ||
    typeof payToAddress !== 'string' ||
    !Number.isSafeInteger(refundableAtBlockHeight)
  ) {
    throw new LnswapError('InvalidOrMissingQuoteFields');
  }
  const amount = readAmount(fields.amount, solicitation.market);
  const network = solicitation.market.network;

  const terms = parseHtlcRedeemScript(redeemScript);
  const { refundAddress } = solicitation;
  const userRefundKeyHash =
    refundAddress === undefined ? undefined : refundPublicKeyHashOfAddress(refundAddress, network);
  if (
    terms === undefined ||
    terms.paymentHash !== solicitation.paymentHash ||
    userRefundKeyHash === undefined ||
    terms.refundPublicKeyHash !== userRefundKeyHash ||
    terms.refundableAtBlockHeight !== refundableAtBlockHeight
  ) {
    throw new LnswapError('InvalidRedeemScript');
  }

  const scriptAddresses = Object.values(htlcPayToAddresses(redeemScript, network));
  if (!scriptAddresses.includes(payToAddress)) throw new LnswapError('InvalidPayToAddress');

  const currentHeight = solicitation.chains.bitcoin?.blockHeight;
  const timelockBlocks = currentHeight === undefined ? undefined : terms.refundableAtBlockHeight - currentHeight;
  const { minTimelockBlocks, maxTimelockBlocks } = bounds;
  if (timelockBlocks === undefined || timelockBlocks < minTimelockBlocks || timelockBlocks > maxTimelockBlocks) {
    throw new LnswapError('TimelockIsOutOfBounds');
  }

  return {
    amount,
    payToAddress,
    htlc: { redeemScript: redeemScript.toLowerCase(), refundableAtBlockHeight: terms.refundableAtBlockHeight },
  };
}

function verifyEthereumFunding(
  fields: QuoteFields,
  solicitation: QuoteSolicitation,
  bounds: QuoteBounds,
): Omit<VerifiedQuote, 'expiresAt'> {
  const transaction = fields.details.unsignedFundingTx;
  if (!isPlainObject(transaction)) throw new LnswapError('InvalidOrMissingQuoteFields');
  const { to, data, value } = transaction;
  if (typeof to !== 'string' || typeof data !== 'string' || typeof value !== 'string') {
    throw new LnswapError('InvalidOrMissingQuoteFields');
  }
  const amount = fields.amount === undefined ? undefined : readAmount(fields.amount, solicitation.market);

  const ethereum = solicitation.chains.ethereum;
  if (ethereum === undefined || to.toLowerCase() !== ethereum.swapContractAddress.toLowerCase()) {
    throw new LnswapError('ContractIsNotWhitelisted');
  }
  if (data.toLowerCase() !== encodeFundCalldata(solicitation.orderId, solicitation.paymentHash, ZERO_ADDRESS)) {
    throw new LnswapError('InvalidContractData');
  }
  const wei = parseBaseUnits(value);
  if (wei === undefined || wei === 0n || (amount !== undefined && amount !== wei)) {
    throw new LnswapError('InvalidFundTxValue');
  }

  return {
    amount: wei,
    payToAddress: ethereum.swapContractAddress,
    htlc: { refundableAtBlockHeight: ethereum.blockHeight + bounds.ethereumRefundDelayBlocks },
  };
}

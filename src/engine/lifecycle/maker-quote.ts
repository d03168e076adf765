import { formatFixedPoint, parseBaseUnits, parseDecimalAmount } from '../../domain/amounts.js';
import { htlcPayToAddresses, parseHtlcRedeemScript, refundPublicKeyHashOfAddress } from '../../domain/bitcoin.js';
import { LnswapError } from '../../domain/errors.js';
import { decodeFundingCalldata } from '../../domain/ethereum.js';
import type { Market } from '../../domain/markets.js';
import type { ChainViews, HtlcTerms } from '../../domain/order.js';
import { normalizeOrderId } from '../../domain/order-ids.js';
import type { EngineOptions } from '../operations/options.js';
import { makerQuoteShape } from '../../wire/socket-payloads.js';
import { isPlainObject, payloadReader } from './payload-shapes.js';

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

/** Who sent a maker quote, as its credential says at the time of the quote. */
export interface QuotingProvider {
  readonly id: string;
  /** Lowercase; the operator's word (`lnswap providers`), never the provider's. */
  readonly ethereumPayoutAddress?: string;
}

/** A maker quote the service can prove leads to a refundable HTLC that pays the quoting provider. */
export interface VerifiedQuote {
  readonly amount: bigint;
  readonly expiresAt: number;
  readonly payToAddress: string;
  readonly htlc: HtlcTerms;
  readonly providerId: string;
  /** Ethereum-style markets: the quoting provider's payout address, which the funding names as claimer. */
  readonly claimAddress?: string;
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
 * Verifies `{ orderId, quoteExpiryTimestampMs, amount?, details }` from `provider` against the solicitation.
 * Throws LnswapError with the first reason the quote cannot win.
 */
export function verifyMakerQuote(
  payload: unknown,
  solicitation: QuoteSolicitation,
  bounds: QuoteBounds,
  receivedAt: number,
  provider: QuotingProvider,
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
      : verifyEthereumFunding(fields, solicitation, bounds, provider);
  return { ...funding, expiresAt: fields.quoteExpiryTimestampMs, providerId: provider.id };
}

const readQuote = payloadReader<QuoteFields & { orderId: string }>(makerQuoteShape);

function readFields(payload: unknown, expectedOrderId: string): QuoteFields {
  const { orderId, quoteExpiryTimestampMs, amount, details } = readQuote(payload);
  if (normalizeOrderId(orderId) !== expectedOrderId) throw new LnswapError('InvalidOrMissingQuoteFields');
  return { quoteExpiryTimestampMs, ...(amount === undefined ? {} : { amount }), details };
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
): Omit<VerifiedQuote, 'expiresAt' | 'providerId'> {
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

/**
 * The funding must be a call of the watched swap contract that opens a slot for exactly this order and payment
 * hash, paying the quoting provider's registered payout address, in the market's asset and for the quoted amount:
 * anything else would let a provider (or whoever holds its secret) send the user's money elsewhere.
 */
function verifyEthereumFunding(
  fields: QuoteFields,
  solicitation: QuoteSolicitation,
  bounds: QuoteBounds,
  provider: QuotingProvider,
): Omit<VerifiedQuote, 'expiresAt' | 'providerId'> {
  const claimAddress = provider.ethereumPayoutAddress;
  if (claimAddress === undefined) throw new LnswapError('ProviderHasNoPayoutAddress');
  const transaction = fields.details.unsignedFundingTx;
  if (!isPlainObject(transaction)) throw new LnswapError('InvalidOrMissingQuoteFields');
  const { to, data, value } = transaction;
  if (typeof to !== 'string' || typeof data !== 'string' || typeof value !== 'string') {
    throw new LnswapError('InvalidOrMissingQuoteFields');
  }
  const quoted = fields.amount === undefined ? undefined : readAmount(fields.amount, solicitation.market);

  const ethereum = solicitation.chains.ethereum;
  if (ethereum === undefined || to.toLowerCase() !== ethereum.swapContractAddress.toLowerCase()) {
    throw new LnswapError('ContractIsNotWhitelisted');
  }
  const call = decodeFundingCalldata(data);
  if (call === undefined || call.orderId !== solicitation.orderId || call.paymentHash !== solicitation.paymentHash) {
    throw new LnswapError('InvalidContractData');
  }
  const wei = parseBaseUnits(value);
  if (wei === undefined) throw new LnswapError('InvalidFundTxValue');

  const token = solicitation.market.onchain.tokenAddress;
  let amount: bigint;
  if (token === undefined) {
    if (call.functionName !== 'fund') throw new LnswapError('InvalidContractData');
    if (wei === 0n || (quoted !== undefined && quoted !== wei)) throw new LnswapError('InvalidFundTxValue');
    amount = wei;
  } else {
    if (call.functionName !== 'fundToken' || call.token !== token.toLowerCase()) {
      throw new LnswapError('InvalidContractData');
    }
    if (call.amount === 0n || (quoted !== undefined && quoted !== call.amount)) {
      throw new LnswapError('InvalidContractData');
    }
    if (wei !== 0n) throw new LnswapError('InvalidFundTxValue');
    amount = call.amount;
  }
  if (call.claimer !== claimAddress) throw new LnswapError('ClaimerIsNotPayoutAddress');

  return {
    amount,
    payToAddress: ethereum.swapContractAddress,
    htlc: { refundableAtBlockHeight: ethereum.blockHeight + bounds.ethereumRefundDelayBlocks },
    claimAddress,
  };
}

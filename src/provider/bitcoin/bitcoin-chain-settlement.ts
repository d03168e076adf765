import { parseDecimalAmount } from '../../domain/amounts.js';
import type { Market } from '../../domain/markets.js';
import { quoteBitcoinHtlc } from './bitcoin-quote.js';
import { judgeServiceAnswer, type ServiceAnswer } from '../rules/quoted-terms.js';
import type { QuoteDetailsRequest } from '../service-link/quote-responder.js';
import { settleBitcoinOrder, type BitcoinSettlement, type BitcoinSettlementStep } from './settle-bitcoin-order.js';
import type { BitcoinHtlcRecord, QuoteRecord } from '../state/provider-state.js';
import type { FundingDetailsView } from '../../client/views.js';
import type { ChainSettlement, ClaimProgress, SettleOutcome } from '../daemon/chain-settlement.js';

export interface BitcoinChainOptions {
  /** Everything but the routing fee limit, which is per market. */
  settlement: Omit<BitcoinSettlement, 'feeLimitMillisatoshis'>;
  market: Market;
  feeLimitMillisatoshis: (amount: bigint) => bigint;
  /** Blocks between the quote and the HTLC's refund height (the service accepts 24 to 2016). */
  timelockBlocks: number;
}

/**
 * The Bitcoin side of the daemon, around `settleBitcoinOrder`: the quote's HTLC names the order's own
 * claim key (BIP32 from the provider's seed) and the user's refund address; an order is won when the
 * service's redeem script, address and amount are the ones quoted; the settle step pays, claims every output, and replaces
 * the claim at a higher rate, so watching a claim is the same step again.
 */
export function bitcoinChainSettlement(
  options: BitcoinChainOptions,
): ChainSettlement & { quoteDetails(order: QuoteDetailsRequest): Promise<Record<string, unknown> | undefined> } {
  const settlement: BitcoinSettlement = { ...options.settlement, feeLimitMillisatoshis: options.feeLimitMillisatoshis };
  const { state } = settlement;
  const tipHeight = async () => (await settlement.chain.tip()).height;
  return {
    chain: 'bitcoin',
    async quoteDetails(order) {
      const quote = quoteBitcoinHtlc(state, settlement.keys, {
        orderId: order.orderId,
        paymentHash: order.paymentHash,
        refundAddress: order.refundAddress,
        network: settlement.network,
        currentHeight: await tipHeight(),
        timelockBlocks: options.timelockBlocks,
      });
      return 'details' in quote ? { ...quote.details } : undefined;
    },
    judgeFunding: (fundDetails, quote) =>
      judgeBitcoinFunding(fundDetails, quote, options.market, state.bitcoinHtlc(quote.orderId)),
    async settle(order) {
      return outcomeOf(await settleBitcoinOrder(settlement, order));
    },
    async watchClaim(claim) {
      const payment = state.payment(claim.paymentHash);
      if (payment === undefined) throw new Error(`claim of order ${claim.orderId} has no payment`);
      const step = await settleBitcoinOrder(settlement, {
        orderId: claim.orderId,
        invoice: payment.invoice,
        serviceState: 'Funded',
      });
      const blocksLeft = claim.refundHeight - (await tipHeight());
      return progressOf(step, claim.attempts > 0, blocksLeft, () => state.recordClaimLost(claim.orderId));
    },
    height: tipHeight,
  };
}

function outcomeOf(step: BitcoinSettlementStep): SettleOutcome {
  switch (step.kind) {
    case 'waiting':
    case 'not-paying':
    case 'payment-suspect':
      return { kind: step.kind, reason: step.reason };
    case 'payment-pending':
    case 'payment-failed':
    case 'claim-sent':
      return { kind: step.kind };
    default:
      return { kind: 'claim-broadcast', reason: step.kind };
  }
}

function progressOf(
  step: BitcoinSettlementStep,
  sentBefore: boolean,
  blocksLeft: number,
  markLost: () => void,
): ClaimProgress {
  switch (step.kind) {
    case 'claim-confirmed':
      return { kind: 'confirmed', txId: step.txId };
    case 'refunded':
      markLost();
      return { kind: 'lost' };
    case 'claim-sent':
      return {
        kind: sentBefore ? 'bumped' : 'sent',
        blocksLeft,
        atRisk: step.atRisk,
        txId: step.txId,
        rate: step.rate,
      };
    case 'claim-capped':
    case 'claim-not-worth-it':
      return { kind: 'capped', blocksLeft, atRisk: true };
    case 'claim-waiting':
      return { kind: 'waiting', blocksLeft, atRisk: step.atRisk };
    default:
      return { kind: 'waiting', blocksLeft, atRisk: false };
  }
}

/**
 * The service's funding details against the HTLC this provider quoted: the redeem script names whose quote it
 * is (it holds the order's claim key; another script: an auction lost); with the provider's script, the
 * address and the amount must be the quote's.
 */
function judgeBitcoinFunding(
  funding: FundingDetailsView,
  quote: QuoteRecord,
  market: Market,
  htlc: BitcoinHtlcRecord | undefined,
): ServiceAnswer {
  if (htlc === undefined) return { kind: 'another-quote' };
  const { redeemScript, payToAddress } = 'redeemScript' in funding.details ? funding.details : {};
  const amount = parseDecimalAmount(funding.amount, market.onchain.decimals);
  return judgeServiceAnswer(
    [
      {
        term: 'redeemScript',
        quoted: htlc.redeemScript.toLowerCase(),
        answered: redeemScript?.toLowerCase(),
      },
      {
        term: 'payToAddress',
        quoted: htlc.payToAddress,
        answered: payToAddress,
      },
      { term: 'amount', quoted: quote.onchainAmount.toString(), answered: amount?.toString() },
    ],
    'redeemScript',
  );
}

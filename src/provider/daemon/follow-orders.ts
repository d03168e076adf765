import type { Logger } from 'pino';
import type { ChainKind } from '../../domain/markets.js';
import { LIVE_ORDER_STATES, type OrderState } from '../../domain/states.js';
import type { ServiceReads } from '../../client/http-reads.js';
import type { SendPaymentResult } from '../payments/report-outcomes.js';
import { reportRefundAuthorizations, type SendRefundAuthorization } from '../payments/report-refunds.js';
import { PAYMENT_FAILED } from '../rules/payment-report.js';
import { judgeInvoice, type TermReading } from '../rules/quoted-terms.js';
import type { ProviderState, QuoteRecord } from '../state/provider-state.js';
import { nextStep, settlementDue } from '../lifecycle/lifecycle-steps.js';
import { orderLifecycle, type OrderStanding } from '../lifecycle/order-lifecycle.js';
import type { ChainSettlement, SettleOutcome } from './chain-settlement.js';
import type { ProviderMetrics } from './provider-metrics.js';
import { firstLineOf } from '../../domain/errors.js';

export interface OrderFollowing {
  state: ProviderState;
  /** The service's HTTP read API. */
  service: ServiceReads;
  /** The chain settlement of each market served, by market name. */
  settlements: ReadonlyMap<string, ChainSettlement>;
  send: SendPaymentResult;
  /** Sends an order's signed cooperative refunds, once written down. */
  sendRefunds: SendRefundAuthorization;
  metrics: ProviderMetrics;
  logger: Logger;
  now: () => number;
  /** A quote whose order the service still does not know this long after it was given lost its auction. */
  auctionGraceMs: number;
  /** The last step logged per order, so a step repeated every round is logged once. */
  loggedSteps: Map<string, string>;
}

const LIVE: ReadonlySet<OrderState> = new Set(LIVE_ORDER_STATES);

/**
 * One round over every order the provider quoted and still follows, through the service's HTTP read
 * API: an undecided quote is won when the order's funding details are the provider's own quote, lost
 * when they are another provider's; an order won is handed to its chain's settlement with the invoice
 * quoted for, once the service says `Funded` or a payment of it is under way; a decision never to pay is
 * reported as a failure; an order that is over, with nothing in flight or owed, is closed. An answer
 * naming this provider's quote with other terms (`judgeServiceAnswer`) closes the order unpaid for good.
 * An order whose payment is suspect is left alone (no read, no node call, no report) and logged at error once
 * per process. Each order's step follows from its lifecycle state (`orderLifecycle`).
 */
export async function followOrdersRound(following: OrderFollowing): Promise<void> {
  for (const quote of following.state.openQuotes()) {
    try {
      await followOrder(following, quote);
    } catch (error) {
      following.logger.warn(
        { orderId: quote.orderId, error: firstLineOf(error) },
        'following the order failed; trying again',
      );
    }
  }
}

async function followOrder(following: OrderFollowing, quote: QuoteRecord): Promise<void> {
  const { state } = following;
  const settlement = following.settlements.get(quote.market);
  if (settlement === undefined) return;
  const before = standingOf(state, quote);
  switch (nextStep(before.state)) {
    case 'leave-to-operator':
      logSuspectOnce(following, quote.orderId);
      return;
    case 'none':
      return;
    case 'decide-auction':
      if (!(await auctionWon(following, settlement, quote))) return;
      break;
    case 'follow':
      break;
  }
  const order = await following.service.order(quote.orderId);
  if (order === 'not-found') return;
  const { state: serviceState, invoice } = order;
  const standing = standingOf(state, quote);
  if (standing.state === 'won') {
    const answer = judgeInvoice(quote, invoice);
    if (answer.kind === 'contradicts-quote') {
      refuseMismatch(following, quote, 'order', answer.differences);
      await giveUp(following, settlement, quote);
      return;
    }
    // Funded after its window closed: the service never swaps it, the user's money waits for its refund.
    if (serviceState === 'FundWindowElapsed') await giveUp(following, settlement, quote);
  }
  if (settlementDue(standing.state, serviceState)) {
    // A payment begun goes on with its own invoice; otherwise the one quoted for is the one paid.
    const payable = state.paymentOfOrder(quote.orderId)?.invoice ?? quote.invoice;
    // Quoted before invoices were kept: nothing to hold the service's invoice against, so nothing is paid.
    const outcome =
      payable === undefined
        ? { kind: 'not-paying' as const, reason: 'quoted-invoice-unknown' }
        : await settlement.settle({ orderId: quote.orderId, market: quote.market, invoice: payable, serviceState });
    logOnce(following, quote.orderId, outcome);
    if (outcome.kind === 'not-paying' || outcome.kind === 'payment-failed') await giveUp(following, settlement, quote);
    if (outcome.kind === 'not-paying' && (await refusalTaken(following, quote.orderId))) {
      state.closeQuote(quote.orderId);
      return;
    }
  }
  const after = standingOf(state, quote);
  if (after.state === 'suspect') {
    logSuspectOnce(following, quote.orderId);
    return;
  }
  // A claim not yet broadcast keeps the order followed, whatever the service says of it.
  if (!LIVE.has(serviceState) && !after.reportOwed && after.state !== 'paid') {
    state.closeQuote(quote.orderId);
    following.loggedSteps.delete(quote.orderId);
  }
}

/** The order's standing as the state file holds it now. */
function standingOf(state: ProviderState, quote: QuoteRecord): OrderStanding {
  return orderLifecycle({
    quote: state.quote(quote.orderId) ?? quote,
    payment: state.paymentOfOrder(quote.orderId),
    claim: state.claim(quote.orderId),
    refunds: state.refundSignatures(quote.orderId),
  });
}

/**
 * Decides the auction of an order quoted from the service's funding details: won when they are the provider's
 * own quote, lost when another provider's (or when the service still does not know the order after the grace),
 * refused for good when they name this provider's quote with other terms. True once won.
 */
async function auctionWon(
  following: OrderFollowing,
  settlement: ChainSettlement,
  quote: QuoteRecord,
): Promise<boolean> {
  const { state } = following;
  const funding = await following.service.fundDetails(quote.orderId);
  if (funding === 'not-found') {
    if (following.now() > quote.quotedAtMs + following.auctionGraceMs) state.closeQuote(quote.orderId);
    return false;
  }
  const answer = settlement.judgeFunding(funding, quote);
  if (answer.kind === 'another-quote') {
    state.closeQuote(quote.orderId);
    return false;
  }
  if (answer.kind === 'contradicts-quote') {
    refuseMismatch(following, quote, 'fundDetails', answer.differences);
    return false;
  }
  state.markQuoteWon(quote.orderId);
  following.metrics.quoteWon(quote.market);
  following.logger.info({ orderId: quote.orderId, market: quote.market }, 'won the auction');
  return true;
}

/**
 * The service named this provider's quote with other terms (`read`: the answer that did): the order is closed
 * unpaid for good, its payment hash written down as failed (`recordServiceMismatch`, reported to the service
 * by `reportOutcomes` like any failure), one error line names each term as quoted and as answered, and each
 * term is counted.
 */
function refuseMismatch(
  following: OrderFollowing,
  quote: QuoteRecord,
  read: 'fundDetails' | 'order',
  differences: readonly TermReading[],
): void {
  following.state.recordServiceMismatch(quote.orderId, following.now());
  following.loggedSteps.delete(quote.orderId);
  for (const { term } of differences) following.metrics.serviceMismatch(term);
  following.logger.error(
    {
      orderId: quote.orderId,
      market: quote.market,
      read,
      mismatches: differences.map(({ term, quoted, answered }) => ({
        field: term,
        quoted,
        answered: answered ?? null,
      })),
    },
    'the service answered terms other than the quote: never paying this order',
  );
}

/** What giving an order up did: signatures written down (and sent), a payment in the way, or no slot to sign. */
export type GiveUp = 'recorded' | 'payment-under-way' | 'nothing-to-sign';

/**
 * The provider will never pay the order: it signs the cooperative refund of each slot naming it (a contract that
 * has them), writes the signatures down, and only then sends them, so a crash between the two leaves them to the
 * next round's `reportRefundAuthorizations` and the payment hash is never paid (`beginPayment`). Nothing is signed
 * while a payment of the hash is in flight or succeeded (`recordRefundSignatures` refuses), nor again for a slot
 * signed before. Failures to sign or send are tried again on a later round.
 */
export async function giveUp(
  following: OrderFollowing,
  settlement: ChainSettlement,
  quote: QuoteRecord,
): Promise<GiveUp> {
  if (settlement.signRefunds === undefined) return 'nothing-to-sign';
  const signed = new Set(following.state.refundSignatures(quote.orderId).map(({ funder }) => funder));
  const refunds = (await settlement.signRefunds(quote)).filter(({ funder }) => !signed.has(funder));
  if (refunds.length === 0) return 'nothing-to-sign';
  const recorded = following.state.recordRefundSignatures(quote.orderId, quote.paymentHash, refunds, following.now());
  if (recorded !== 'recorded') return recorded;
  following.metrics.refundsSigned(refunds.length);
  following.logger.info(
    { orderId: quote.orderId, funders: refunds.map(({ funder }) => funder) },
    'never paying this order: its refunds signed for the user to take back at once',
  );
  await reportRefundAuthorizations(following.state, following.sendRefunds);
  return recorded;
}

/**
 * Tells the service the provider will not pay (the money rules refused for good): a failure, after
 * which the user refunds at the timelock. True once the service took it or refused it for good.
 */
async function refusalTaken(following: OrderFollowing, orderId: string): Promise<boolean> {
  try {
    const ack = await following.send({ orderId, success: false, failedReason: PAYMENT_FAILED });
    return ack.success || ['OrderNotFunded', 'OrderNotFound', 'OrderNotWonByProvider'].includes(ack.message);
  } catch {
    return false;
  }
}

function logOnce(following: OrderFollowing, orderId: string, outcome: SettleOutcome): void {
  if (outcome.kind === 'payment-suspect') return;
  const seen = following.loggedSteps;
  const key = `${outcome.kind}:${outcome.reason ?? ''}`;
  if (seen.get(orderId) === key) return;
  seen.set(orderId, key);
  const fields = { orderId, step: outcome.kind, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) };
  if (outcome.kind === 'not-paying' || outcome.kind === 'payment-failed') {
    following.logger.warn(fields, 'not paying this order: the user refunds after the timelock');
  } else {
    following.logger.info(fields, 'order settlement');
  }
}

/**
 * One error line per suspect payment and process, with what the node said: the metric and `/readyz` keep saying
 * it, so a line on every round would only bury the rest of the log.
 */
function logSuspectOnce(following: OrderFollowing, orderId: string): void {
  const payment = following.state.paymentOfOrder(orderId);
  const key = 'payment-suspect';
  if (payment === undefined || following.loggedSteps.get(orderId) === key) return;
  following.loggedSteps.set(orderId, key);
  following.logger.error(
    {
      orderId,
      paymentHash: payment.paymentHash,
      reason: payment.suspectReason,
      nodeReport: payment.nodeReport,
    },
    'payment SUSPECT: the Lightning node reported it in a state the daemon cannot trust; it is not paid again, ' +
      'reported or claimed until the operator resolves it (docs/provider.md, Suspect payments)',
  );
}

/** Chains of the settlements, for the claim watch. */
export function settlementsByChain(settlements: ReadonlyMap<string, ChainSettlement>): Map<ChainKind, ChainSettlement> {
  return new Map([...settlements.values()].map((settlement) => [settlement.chain, settlement]));
}

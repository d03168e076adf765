import type { LightningBackend, PaymentOutcome } from '../../chains/lightning/lightning-backend.js';
import { preimageMatchesPaymentHash } from '../../domain/invoice.js';
import type { ChainKind } from '../../domain/markets.js';
import type { OrderState } from '../../domain/states.js';
import { decidePayment, type PaymentConditions, type PaymentDecision } from '../rules/payment-decision.js';
import type { PaymentRecord, ProviderState } from '../state/provider-state.js';

export interface InvoicePayment {
  orderId: string;
  invoice: string;
  paymentHash: string;
  amountMillisatoshis: bigint;
  feeLimitMillisatoshis: bigint;
  timeoutSeconds: number;
  /** The claim a success entitles the provider to, opened with the success. */
  claim: { chain: ChainKind; refundHeight: number };
}

/** Where a payment stands after a step: its record, or that the node never received it. */
export type PaymentProgress = { record: PaymentRecord } | { notSent: PaymentRecord };

/**
 * Pays an invoice the money rules cleared, at most once per payment hash: the payment is written
 * down before the node is asked; one written down before is looked up at the node and sent only if
 * the node never received it. A payment the node leaves in flight stays `paying`, to be resumed.
 */
export async function payInvoice(
  state: ProviderState,
  lightning: LightningBackend,
  payment: InvoicePayment,
  now: () => number,
): Promise<PaymentRecord> {
  const begun = state.beginPayment({
    paymentHash: payment.paymentHash,
    orderId: payment.orderId,
    invoice: payment.invoice,
    amountMillisatoshis: payment.amountMillisatoshis,
    feeLimitMillisatoshis: payment.feeLimitMillisatoshis,
    nowMs: now(),
  });
  if (begun === 'exists') {
    const existing = requireRecord(state, payment.paymentHash);
    if (existing.state !== 'paying') return existing;
    const lookup = await lightning.lookupPayment(payment.paymentHash);
    if (lookup.kind !== 'unknown') return applyOutcome(state, existing, lookup, payment.claim, now);
  }
  const outcome = await lightning.pay({
    invoice: payment.invoice,
    feeLimitMillisatoshis: payment.feeLimitMillisatoshis,
    timeoutSeconds: payment.timeoutSeconds,
  });
  return applyOutcome(state, requireRecord(state, payment.paymentHash), outcome, payment.claim, now);
}

/**
 * After a restart or a lost answer: looks a `paying` payment up at the node and records what it
 * says. `notSent` when the node never received it (the process stopped between writing it down and
 * asking the node): the caller checks the money rules again before paying it with payInvoice.
 */
export async function resumePayment(
  state: ProviderState,
  lightning: LightningBackend,
  record: PaymentRecord,
  claim: InvoicePayment['claim'],
  now: () => number,
): Promise<PaymentProgress> {
  const lookup = await lightning.lookupPayment(record.paymentHash);
  if (lookup.kind === 'unknown') return { notSent: record };
  return { record: applyOutcome(state, record, lookup, claim, now) };
}

/** What a settlement step pays with: the provider's state and node, and its payment settings. */
export interface PaymentSettings {
  state: ProviderState;
  lightning: LightningBackend;
  paymentTimeoutSeconds: number;
  /** The routing fee the provider allows for an order's invoice, in millisatoshis. */
  feeLimitMillisatoshis: (amountMillisatoshis: bigint) => bigint;
  /** Confirmations the provider wants on the funding before paying. */
  requiredConfirmations: number;
  /** Blocks it keeps between paying and the refund height, to get its claim confirmed. */
  claimMarginBlocks: number;
  now: () => number;
}

/** Where an order's payment stands for a settlement step: in flight, failed, or paid with its preimage. */
export type PaymentStanding =
  { kind: 'payment-pending' } | { kind: 'payment-failed' } | { kind: 'paid'; preimage: string };

/**
 * The payment to `paymentHash` before the money rules are asked: one in flight is looked up at the node first.
 * `undefined` when none was made, or the node never received it: the rules decide afresh, and payWhenCleared sends it.
 */
export async function paymentStanding(
  settings: PaymentSettings,
  paymentHash: string,
  claim: InvoicePayment['claim'],
): Promise<PaymentStanding | undefined> {
  const payment = settings.state.payment(paymentHash);
  if (payment?.state !== 'paying') return payment === undefined ? undefined : standingOf(payment);
  const resumed = await resumePayment(settings.state, settings.lightning, payment, claim, settings.now);
  return 'record' in resumed ? standingOf(resumed.record) : undefined;
}

/** What the provider's own chain reading says of a won order's funding, for the money rules. */
export interface FundingReading {
  /** The order's state as the service reports it. */
  serviceState: OrderState;
  ownFunding: PaymentConditions['ownFunding'];
  expectedAmount: bigint;
  currentHeight: number;
}

/** A payment step: the payment's standing, or why the money rules do not pay (yet, or ever). */
export type PaymentStep =
  | PaymentStanding
  | { kind: 'waiting'; reason: Extract<PaymentDecision, { final: false }>['reason'] }
  | { kind: 'not-paying'; reason: Extract<PaymentDecision, { final: true }>['reason'] };

/**
 * Pays the invoice of an order the provider won when the money rules clear it on the provider's own reading
 * (`decidePayment`), within the provider's limits; otherwise says why not. The claim's refund height is the one
 * the rules keep the claim margin from.
 */
export async function payWhenCleared(
  settings: PaymentSettings,
  order: { orderId: string; invoice: string },
  invoice: { paymentHash: string; amountMillisatoshis: bigint; expiresAtMs: number },
  claim: InvoicePayment['claim'],
  reading: FundingReading,
): Promise<PaymentStep> {
  const decision = decidePayment({
    ...reading,
    requiredConfirmations: settings.requiredConfirmations,
    refundHeight: claim.refundHeight,
    claimMarginBlocks: settings.claimMarginBlocks,
    invoiceExpiresAtMs: invoice.expiresAtMs,
    nowMs: settings.now(),
    alreadyBegun: false,
  });
  if (!decision.pay) {
    return decision.final
      ? { kind: 'not-paying', reason: decision.reason }
      : { kind: 'waiting', reason: decision.reason };
  }
  const record = await payInvoice(
    settings.state,
    settings.lightning,
    {
      orderId: order.orderId,
      invoice: order.invoice,
      paymentHash: invoice.paymentHash,
      amountMillisatoshis: invoice.amountMillisatoshis,
      feeLimitMillisatoshis: settings.feeLimitMillisatoshis(invoice.amountMillisatoshis),
      timeoutSeconds: settings.paymentTimeoutSeconds,
      claim,
    },
    settings.now,
  );
  return standingOf(record);
}

function standingOf(record: PaymentRecord): PaymentStanding {
  switch (record.state) {
    case 'paying':
      return { kind: 'payment-pending' };
    case 'failed':
      return { kind: 'payment-failed' };
    case 'succeeded':
      return { kind: 'paid', preimage: record.preimage ?? '' };
  }
}

function applyOutcome(
  state: ProviderState,
  record: PaymentRecord,
  outcome: PaymentOutcome,
  claim: InvoicePayment['claim'],
  now: () => number,
): PaymentRecord {
  switch (outcome.kind) {
    case 'succeeded':
      // The preimage is what the claim spends with: a wrong one would be recorded as paid and never claim.
      if (!preimageMatchesPaymentHash(outcome.preimage, record.paymentHash)) {
        throw new Error(`the Lightning node reported a preimage that does not match payment ${record.paymentHash}`);
      }
      state.recordPaymentSucceeded(
        record.paymentHash,
        { preimage: outcome.preimage, feeMillisatoshis: outcome.feeMillisatoshis, nowMs: now() },
        claim,
      );
      break;
    case 'failed':
      state.recordPaymentFailed(record.paymentHash, outcome.reason, now());
      break;
    case 'pending':
      break;
  }
  return requireRecord(state, record.paymentHash);
}

function requireRecord(state: ProviderState, paymentHash: string): PaymentRecord {
  const record = state.payment(paymentHash);
  if (record === undefined) throw new Error(`provider state lost payment ${paymentHash}`);
  return record;
}

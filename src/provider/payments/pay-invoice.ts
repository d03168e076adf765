import type { LightningBackend, PaymentOutcome, SuspectReason } from '../../chains/lightning/lightning-backend.js';
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
 * the node never received it. A payment the node leaves in flight stays `paying`, to be resumed; one the node
 * reports in a state the daemon cannot trust is `suspect`, and stays so. `refund-signed`, nothing sent: the
 * provider signed the refund of this hash away, so paying it would lose the invoice's amount.
 */
export async function payInvoice(
  state: ProviderState,
  lightning: LightningBackend,
  payment: InvoicePayment,
  now: () => number,
): Promise<PaymentRecord | 'refund-signed'> {
  const begun = state.beginPayment({
    paymentHash: payment.paymentHash,
    orderId: payment.orderId,
    invoice: payment.invoice,
    amountMillisatoshis: payment.amountMillisatoshis,
    feeLimitMillisatoshis: payment.feeLimitMillisatoshis,
    nowMs: now(),
  });
  if (begun === 'refund-signed') return begun;
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

/**
 * Where an order's payment stands for a settlement step: in flight, failed, paid with its preimage, or suspect
 * (nothing more is done for it until the operator resolves it).
 */
export type PaymentStanding =
  | { kind: 'payment-pending' }
  | { kind: 'payment-failed' }
  | { kind: 'paid'; preimage: string }
  | { kind: 'payment-suspect'; reason: SuspectReason };

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
  | { kind: 'not-paying'; reason: Extract<PaymentDecision, { final: true }>['reason'] | 'refund-signed' };

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
  return record === 'refund-signed' ? { kind: 'not-paying', reason: record } : standingOf(record);
}

function standingOf(record: PaymentRecord): PaymentStanding {
  switch (record.state) {
    case 'paying':
      return { kind: 'payment-pending' };
    case 'failed':
      return { kind: 'payment-failed' };
    case 'succeeded':
      return { kind: 'paid', preimage: record.preimage ?? '' };
    case 'suspect':
      return { kind: 'payment-suspect', reason: record.suspectReason ?? 'unknown-status' };
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
    case 'succeeded': {
      const suspicion = suspicionOf(outcome, record);
      if (suspicion !== undefined) {
        state.recordPaymentSuspect(record.paymentHash, { ...suspicion, nowMs: now() });
        break;
      }
      state.recordPaymentSucceeded(
        record.paymentHash,
        { preimage: outcome.preimage, feeMillisatoshis: outcome.feeMillisatoshis, nowMs: now() },
        claim,
      );
      break;
    }
    case 'suspect':
      state.recordPaymentSuspect(record.paymentHash, {
        reason: outcome.reason,
        nodeReport: outcome.nodeReport,
        nowMs: now(),
      });
      break;
    case 'failed':
      state.recordPaymentFailed(record.paymentHash, outcome.reason, now());
      break;
    case 'pending':
      break;
  }
  return requireRecord(state, record.paymentHash);
}

/**
 * Why a success the node reports cannot be trusted, if it cannot: the preimage is what the claim spends with, so
 * one that does not hash to the payment hash claims nothing; an amount other than the invoice's is not the
 * payment the money rules cleared.
 */
function suspicionOf(
  outcome: Extract<PaymentOutcome, { kind: 'succeeded' }>,
  record: PaymentRecord,
): { reason: SuspectReason; nodeReport: string } | undefined {
  if (!preimageMatchesPaymentHash(outcome.preimage, record.paymentHash)) {
    return { reason: 'preimage-mismatch', nodeReport: `preimage ${outcome.preimage}` };
  }
  const amount = outcome.amountMillisatoshis;
  if (amount !== undefined && amount !== record.amountMillisatoshis) {
    return {
      reason: 'amount-mismatch',
      nodeReport: `paid ${amount} msat for an invoice of ${record.amountMillisatoshis} msat`,
    };
  }
  return undefined;
}

function requireRecord(state: ProviderState, paymentHash: string): PaymentRecord {
  const record = state.payment(paymentHash);
  if (record === undefined) throw new Error(`provider state lost payment ${paymentHash}`);
  return record;
}

import { decodeInvoice } from '../../../src/domain/invoice.js';
import { TEST_NODE_PUBLIC_KEY, type SignedInvoice } from '../invoices.js';

/**
 * What happens to a payment to one invoice:
 * - settle: the payee releases the preimage at once;
 * - hold: HTLCs are out until the test calls settle() or fail() (a payment in flight);
 * - no-route: no path to the payee;
 * - keep-searching: the node keeps looking for a route until the payment's own timeout ends it;
 * - settle-bad-preimage, settle-other-amount, unknown-status: settled at once, and the node then
 *   reports a preimage that does not hash to the payment hash, ten times the invoice's amount, or a
 *   status word no node version uses (a node with a bug, a corrupt database, or one that lies).
 * A payment larger than the spendable balance fails for insufficient balance, whatever the behaviour.
 */
export type PayeeBehaviour =
  'settle' | 'hold' | 'no-route' | 'keep-searching' | 'settle-bad-preimage' | 'settle-other-amount' | 'unknown-status';

export type SimulatedFailure = 'no-route' | 'insufficient-balance' | 'timeout' | 'fee-limit' | 'incorrect-details';

export interface SimulatedPayment {
  paymentHash: string;
  invoice: string;
  amountMillisatoshis: bigint;
  feeMillisatoshis: bigint;
  status: 'in-flight' | 'succeeded' | 'failed';
  /** The status word the node reports instead of its own for `status` (unknown-status). */
  statusWord?: string;
  failure?: SimulatedFailure;
  preimage?: string;
  createdAtSeconds: number;
  index: number;
}

/**
 * The Lightning network behind a stand-in node: which invoices it can pay and how, the node's
 * spendable balance, and every payment it sent. Both stand-ins (LND, Core Lightning) share this, so
 * a test states the network once and reads what was sent.
 */
export class SimulatedPayments {
  spendableMillisatoshis = 10_000_000_000n;
  routeFeeMillisatoshis = 1_000n;
  /** Attempts the node actually sent, by payment hash: a payment sent twice shows as 2. */
  readonly sendAttempts = new Map<string, number>();
  private readonly payees = new Map<string, { preimage: string; behaviour: PayeeBehaviour }>();
  private readonly payments = new Map<string, SimulatedPayment>();
  private readonly watchers = new Map<string, Set<(payment: SimulatedPayment) => void>>();
  private nextIndex = 1;

  expect(invoice: SignedInvoice, behaviour: PayeeBehaviour): void {
    this.payees.set(invoice.paymentHash, { preimage: invoice.preimage, behaviour });
  }

  payment(paymentHash: string): SimulatedPayment | undefined {
    return this.payments.get(paymentHash);
  }

  /** The route fee to this payee, or undefined when there is no route for the amount. */
  routeFee(payeePublicKey: string, amountMillisatoshis: bigint): bigint | undefined {
    if (payeePublicKey !== TEST_NODE_PUBLIC_KEY) return undefined;
    if (amountMillisatoshis + this.routeFeeMillisatoshis > this.spendableMillisatoshis) return undefined;
    return this.routeFeeMillisatoshis;
  }

  /**
   * Starts a payment; an invoice the node cannot read is refused with `incorrect-details`. A payment
   * hash paid or in flight is never sent again: that payment is returned with `existing` set.
   */
  send(
    invoice: string,
    feeLimitMillisatoshis: bigint,
    timeoutSeconds: number,
  ): { payment: SimulatedPayment; existing: boolean } | 'unreadable' {
    const decoded = decodeInvoice(invoice);
    if (decoded?.amountMillisatoshis === undefined) return 'unreadable';
    const existing = this.payments.get(decoded.paymentHash);
    // A node sends again to a hash whose earlier payment failed for good; anything else is refused.
    if (existing !== undefined && existing.status !== 'failed') return { payment: existing, existing: true };
    const payment: SimulatedPayment = {
      paymentHash: decoded.paymentHash,
      invoice,
      amountMillisatoshis: decoded.amountMillisatoshis,
      feeMillisatoshis: 0n,
      status: 'in-flight',
      createdAtSeconds: Math.floor(Date.now() / 1000),
      index: this.nextIndex++,
    };
    this.payments.set(payment.paymentHash, payment);
    const payee = this.payees.get(payment.paymentHash);
    if (payment.amountMillisatoshis + this.routeFeeMillisatoshis > this.spendableMillisatoshis) {
      this.resolve(payment, 'insufficient-balance');
    } else if (this.routeFeeMillisatoshis > feeLimitMillisatoshis) {
      this.resolve(payment, 'fee-limit');
    } else if (payee === undefined || payee.behaviour === 'no-route') {
      this.resolve(payment, 'no-route');
    } else if (payee.behaviour === 'keep-searching') {
      setTimeout(() => this.resolve(payment, 'timeout'), timeoutSeconds * 1000).unref();
    } else {
      this.sendAttempts.set(payment.paymentHash, (this.sendAttempts.get(payment.paymentHash) ?? 0) + 1);
      payment.feeMillisatoshis = this.routeFeeMillisatoshis;
      if (payee.behaviour !== 'hold') this.settle(payment.paymentHash);
    }
    return { payment, existing: false };
  }

  /** The payee of a held payment releases the preimage. */
  settle(paymentHash: string): void {
    const payment = this.payments.get(paymentHash);
    const payee = this.payees.get(paymentHash);
    if (payment?.status !== 'in-flight' || payee === undefined)
      throw new Error(`no payment in flight for ${paymentHash}`);
    payment.status = 'succeeded';
    payment.preimage = payee.behaviour === 'settle-bad-preimage' ? anotherPreimage(payee.preimage) : payee.preimage;
    if (payee.behaviour === 'settle-other-amount') payment.amountMillisatoshis *= 10n;
    if (payee.behaviour === 'unknown-status') payment.statusWord = 'UNHEARD_OF';
    this.spendableMillisatoshis -= payment.amountMillisatoshis + payment.feeMillisatoshis;
    this.notify(payment);
  }

  /** A held payment's HTLCs come back failed. */
  fail(paymentHash: string): void {
    const payment = this.payments.get(paymentHash);
    if (payment?.status !== 'in-flight') throw new Error(`no payment in flight for ${paymentHash}`);
    this.resolve(payment, 'no-route');
  }

  /** Calls `listener` once the payment is no longer in flight (at once if it already is not). */
  whenResolved(paymentHash: string, listener: (payment: SimulatedPayment) => void): () => void {
    const payment = this.payments.get(paymentHash);
    if (payment !== undefined && payment.status !== 'in-flight') {
      listener(payment);
      return () => undefined;
    }
    const set = this.watchers.get(paymentHash) ?? new Set();
    set.add(listener);
    this.watchers.set(paymentHash, set);
    return () => set.delete(listener);
  }

  private resolve(payment: SimulatedPayment, failure: SimulatedFailure): void {
    payment.status = 'failed';
    payment.failure = failure;
    payment.feeMillisatoshis = 0n;
    this.notify(payment);
  }

  private notify(payment: SimulatedPayment): void {
    const listeners = this.watchers.get(payment.paymentHash);
    this.watchers.delete(payment.paymentHash);
    for (const listener of listeners ?? []) listener(payment);
  }
}

/** A well-formed preimage (64 hex digits) that does not hash to the payment hash of `preimage`. */
function anotherPreimage(preimage: string): string {
  const first = Number.parseInt(preimage.slice(0, 2), 16) ^ 0x01;
  return first.toString(16).padStart(2, '0') + preimage.slice(2);
}

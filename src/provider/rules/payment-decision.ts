import type { OrderState } from '../../domain/states.js';

/** What the provider knows when an order it won may need paying. */
export interface PaymentConditions {
  /** The order's state as the service reports it. */
  serviceState: OrderState;
  /** The provider's own view of the order's funding on chain; undefined while it has seen none. */
  ownFunding: { amount: bigint; confirmations: number } | undefined;
  /** What the order must be funded with, in the chain's base unit. */
  expectedAmount: bigint;
  /** Confirmations the provider wants on the funding before it pays (its own, per chain). */
  requiredConfirmations: number;
  currentHeight: number;
  /**
   * The height from which the user can take the funds back, as the funding fixes it (the HTLC's
   * locktime, the contract slot's refundHeight).
   */
  refundHeight: number;
  /**
   * Blocks the provider needs between paying and the refund height to get its claim confirmed
   * (configured per chain): paying later risks losing both the payment and the funds.
   */
  claimMarginBlocks: number;
  invoiceExpiresAtMs: number;
  nowMs: number;
  /** Whether any payment to this invoice's hash was begun before, whatever became of it. */
  alreadyBegun: boolean;
}

/**
 * `wait`: not yet (it may change); `never`: it will not change, the provider reports the failure and
 * the user refunds after the timelock.
 */
export type PaymentDecision =
  | { pay: true }
  | { pay: false; final: false; reason: 'not-funded' | 'funding-not-seen' | 'unconfirmed' }
  | {
      pay: false;
      final: true;
      reason: 'already-begun' | 'underfunded' | 'refund-height-too-close' | 'invoice-expired';
    };

/**
 * The rule before any payment: the service and the provider's own chain view agree the order is
 * funded, with enough confirmations and the full amount, enough blocks remain before the refund
 * height to claim, the invoice is still payable, and nothing was ever sent to its hash.
 */
export function decidePayment(conditions: PaymentConditions): PaymentDecision {
  if (conditions.alreadyBegun) return { pay: false, final: true, reason: 'already-begun' };
  if (conditions.serviceState !== 'Funded') return { pay: false, final: false, reason: 'not-funded' };
  const funding = conditions.ownFunding;
  if (funding === undefined) return { pay: false, final: false, reason: 'funding-not-seen' };
  if (funding.amount < conditions.expectedAmount) return { pay: false, final: true, reason: 'underfunded' };
  if (conditions.refundHeight - conditions.currentHeight <= conditions.claimMarginBlocks) {
    return { pay: false, final: true, reason: 'refund-height-too-close' };
  }
  if (conditions.invoiceExpiresAtMs <= conditions.nowMs) return { pay: false, final: true, reason: 'invoice-expired' };
  if (funding.confirmations < conditions.requiredConfirmations)
    return { pay: false, final: false, reason: 'unconfirmed' };
  return { pay: true };
}

import type { ChainKind } from '../../domain/markets.js';
import type { FundingDetailsView } from '../../client/views.js';
import type { OrderState } from '../../domain/states.js';
import type { ServiceAnswer } from '../rules/quoted-terms.js';
import type { ClaimRecord, QuoteRecord } from '../state/provider-state.js';

/** An order the provider won, as the daemon hands it to its chain's settlement. */
export interface WonOrder {
  orderId: string;
  market: string;
  invoice: string;
  /** The order's state as the service reports it now. */
  serviceState: OrderState;
}

/** Where one settlement step left an order: what `settleEthereumOrder` and its Bitcoin twin answer. */
export interface SettleOutcome {
  kind:
    | 'waiting'
    | 'not-paying'
    | 'payment-pending'
    | 'payment-failed'
    | 'payment-suspect'
    | 'claim-sent'
    | 'claim-broadcast';
  reason?: string;
}

/** One slot's signed cooperative refund. */
export interface RefundToSign {
  /** Lowercase 0x address. */
  funder: string;
  /** 65 bytes, lowercase 0x hex. */
  signature: string;
}

/** What watching a claim found. `blocksLeft` counts blocks until the refund height. */
export type ClaimProgress =
  | { kind: 'confirmed'; txId: string }
  | { kind: 'lost' }
  | { kind: 'waiting'; blocksLeft: number; atRisk: boolean }
  /** `sent`: the first claim transaction; `bumped`: a replacement at a higher fee. */
  | { kind: 'sent' | 'bumped'; blocksLeft: number; atRisk: boolean; txId: string; rate: bigint }
  /** The fee is at the policy's maximum and the claim is still not in, near the refund height. */
  | { kind: 'capped'; blocksLeft: number; atRisk: true };

/**
 * What the daemon needs of a market's chain: one step per order it won, safe to repeat after any crash,
 * and the watch of the claims it opened. Each chain the provider quotes on plugs one in; the loop
 * around them is the same for all.
 */
export interface ChainSettlement {
  readonly chain: ChainKind;
  /**
   * The service's funding details of an order against the provider's quote (`judgeServiceAnswer`): as quoted
   * (the auction was won), another provider's quote (lost), or this provider's with other terms (a lie).
   */
  judgeFunding(fundDetails: FundingDetailsView, quote: QuoteRecord): ServiceAnswer;
  settle(order: WonOrder): Promise<SettleOutcome>;
  /** Confirms a claim broadcast, or raises its fee as the refund height nears; sends a pending one. */
  watchClaim(claim: ClaimRecord): Promise<ClaimProgress>;
  /**
   * The cooperative refund of each slot of an order that names the provider and still holds money, signed by the
   * provider's claim key, for an order it will never pay; none on a chain or contract without cooperative refunds.
   * Only signed here: the caller writes them down before they leave.
   */
  signRefunds?(order: { orderId: string; market: string; paymentHash: string }): Promise<RefundToSign[]>;
  /** The chain's tip as its node says: readiness. */
  height(): Promise<number>;
}

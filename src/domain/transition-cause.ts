import type { ChainKind } from './markets.js';

/**
 * Why an order moved: every history row carries one, so an order's past can be read back and explained.
 * `source` says who moved it; `reason` is a short machine-readable name of the rule or event.
 */
export interface TransitionCause {
  readonly source: 'request' | 'timer' | 'chain' | 'import';
  /**
   * e.g. 'requestQuote', 'paymentResult', 'paymentFailedAddressBlacklisted', 'providerAuthorizedRefund' (the winning
   * provider signed cooperative refunds of the order's slots: they may be sent at once), 'fundWindowElapsed',
   * 'fundingSeen', 'fundingConfirmed', 'fundingReorged', 'claimSeen', 'refundHeightReached',
   * 'refundSeen', 'refundConfirmed', 'adminRefundSeen', 'adminRefundConfirmed' (the contract owner's refunds),
   * 'refundReorged', 'fundingLeftMempool' and 'refundLeftMempool' (an unconfirmed transaction the node no
   * longer holds: evicted, or replaced by one paying elsewhere).
   */
  readonly reason: string;
  readonly chain?: ChainKind;
  /** The transaction that caused the move (chain causes). */
  readonly txId?: string;
  readonly blockHeight?: number;
  readonly blockHash?: string;
  /** The socket.io request that caused the move (request causes), as logged. */
  readonly requestId?: string;
}

import type { OrderState } from '../../domain/states.js';
import type { OrderLifecycleState } from './order-lifecycle.js';

/** What a round of the daemon does first for an order in each state. */
export function nextStep(state: OrderLifecycleState): 'decide-auction' | 'follow' | 'leave-to-operator' | 'none' {
  switch (state) {
    case 'quoted':
      return 'decide-auction';
    case 'won':
    case 'paying':
    case 'failed':
    case 'refund-signed':
    case 'paid':
    case 'claim-broadcast':
    case 'claimed':
    case 'claim-lost':
      return 'follow';
    case 'suspect':
      return 'leave-to-operator';
    case 'lost':
    case 'unpaid':
    case 'mismatch':
      return 'none';
  }
}

/**
 * Whether the chain's settle step runs for the order this round: a payment in flight is looked up and a paid
 * order's claim sent whatever the service says; an order won, or whose payment failed, only while `Funded`.
 * A claim broadcast is the claim watch's from then on (`watchClaimsRound`, later in the same round): settling
 * the order here as well would read the chain and send the claim twice a round.
 */
export function settlementDue(state: OrderLifecycleState, serviceState: OrderState): boolean {
  switch (state) {
    case 'won':
    case 'failed':
      return serviceState === 'Funded';
    case 'paying':
    case 'paid':
      return true;
    case 'refund-signed':
    case 'claim-broadcast':
    case 'claimed':
    case 'claim-lost':
    case 'quoted':
    case 'lost':
    case 'unpaid':
    case 'mismatch':
    case 'suspect':
      return false;
  }
}

/** A swap contract v2 slot: the money one funder locked for one order (contracts/SwapContract.sol). */
export interface EthereumSlot {
  paymentHash: string;
  claimer: string;
  /** The zero address for ether. */
  token: string;
  amount: bigint;
  /** The last block in which a claim is accepted; a refund is accepted after it. */
  refundHeight: number;
  state: 'empty' | 'funded' | 'claimed' | 'refunded';
}

export const SLOT_STATES: readonly EthereumSlot['state'][] = ['empty', 'funded', 'claimed', 'refunded'];

export type SlotProblem =
  'not-funded' | 'not-our-claimer' | 'payment-hash-mismatch' | 'wrong-asset' | 'refund-height-passed';

/**
 * Whether a slot is money the provider can take with the preimage of `paymentHash`: funded, naming
 * the provider's payout address as claimer (a claim pays the slot's claimer, whoever sends it), for
 * this payment hash and asset, and the refund height not passed. A slot failing any of these is no
 * funding of the provider's order, whatever the service says: paying against it loses the payment.
 */
export function slotProblem(
  slot: EthereumSlot,
  expected: { payoutAddress: string; paymentHash: string; token: string; currentHeight: number },
): SlotProblem | undefined {
  if (slot.state !== 'funded') return 'not-funded';
  if (slot.claimer.toLowerCase() !== expected.payoutAddress.toLowerCase()) return 'not-our-claimer';
  if (slot.paymentHash.toLowerCase() !== expected.paymentHash.toLowerCase()) return 'payment-hash-mismatch';
  if (slot.token.toLowerCase() !== expected.token.toLowerCase()) return 'wrong-asset';
  if (expected.currentHeight >= slot.refundHeight) return 'refund-height-passed';
  return undefined;
}

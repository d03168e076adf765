import type { Address } from 'viem';

/** What an `OrderFunded` log says about one slot of an order. */
export interface FundedSlot {
  readonly funder?: Address;
  readonly paymentHash?: string;
  readonly claimer?: Address;
  readonly token?: Address;
}

/**
 * The funders whose slot of the order a provider may claim: the slot's payment hash is the one the provider
 * quoted (so its preimage opens it), its claimer is the provider's payout address and its asset the market's
 * (address(0) for ether). Anyone else's slot under the same order id is not the provider's: its claim would
 * revert, or pay someone else. Each funder once, however many times it topped up its slot.
 */
export function claimableFunders(
  slots: readonly FundedSlot[],
  expected: { readonly paymentHash: string; readonly claimer: string; readonly token: string },
): Address[] {
  const paymentHash = `0x${expected.paymentHash}`.toLowerCase();
  const claimer = expected.claimer.toLowerCase();
  const token = expected.token.toLowerCase();
  const funders = new Set<Address>();
  for (const slot of slots) {
    if (
      slot.funder !== undefined &&
      slot.paymentHash?.toLowerCase() === paymentHash &&
      slot.claimer?.toLowerCase() === claimer &&
      slot.token?.toLowerCase() === token
    ) {
      funders.add(slot.funder);
    }
  }
  return [...funders];
}

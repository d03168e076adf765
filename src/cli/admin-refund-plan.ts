import { formatWholeUnits } from '../domain/amounts.js';
import type { OnchainAsset } from '../domain/markets.js';
import type { SlotRole } from '../domain/order-slots.js';

/**
 * Which of an order's open matching slots `admin-refund` refunds: by default the order's own (the principal and
 * every slot that is not dust), with `funders` exactly those funders' slots, with `all` every one.
 */
export type AdminRefundChoice =
  | { readonly kind: 'order' }
  | { readonly kind: 'funders'; readonly funders: readonly string[] }
  | { readonly kind: 'all' };

/** A matching slot the contract still holds, as the chain says. */
export interface OpenSlot {
  /** Lowercase 0x address. */
  readonly funder: string;
  readonly role: SlotRole;
  /** Base units the contract holds in the slot. */
  readonly amount: bigint;
}

export interface SkippedSlot extends OpenSlot {
  readonly reason: string;
}

export interface AdminRefundPlan {
  readonly refund: readonly OpenSlot[];
  readonly skip: readonly SkippedSlot[];
  /** Funders `--funder` named that hold no open matching slot: nothing is sent while any is left. */
  readonly unknownFunders: readonly string[];
}

const DUST_REASON = "dust: under a tenth of the order's amount";
const NOT_NAMED_REASON = 'not named by --funder';

/** Splits the open slots, in their order, into those to refund and those to skip, each skip with its reason. */
export function planAdminRefund(open: readonly OpenSlot[], choice: AdminRefundChoice): AdminRefundPlan {
  if (choice.kind === 'all') return { refund: open, skip: [], unknownFunders: [] };
  if (choice.kind === 'order') {
    return {
      refund: open.filter((slot) => slot.role !== 'dust'),
      skip: open.filter((slot) => slot.role === 'dust').map((slot) => ({ ...slot, reason: DUST_REASON })),
      unknownFunders: [],
    };
  }
  const named = new Set(choice.funders.map((funder) => funder.toLowerCase()));
  const held = new Set(open.map((slot) => slot.funder));
  return {
    refund: open.filter((slot) => named.has(slot.funder)),
    skip: open.filter((slot) => !named.has(slot.funder)).map((slot) => ({ ...slot, reason: NOT_NAMED_REASON })),
    unknownFunders: [...named].filter((funder) => !held.has(funder)),
  };
}

/** An amount as the contract holds it: wei for ether, the token's base units with its ticker. */
export function baseUnitsText(amount: bigint, asset: OnchainAsset): string {
  return asset.tokenAddress === undefined ? `${amount} wei` : `${amount} base units of ${asset.ticker}`;
}

/** Wei with its ether value, for a fee: `98793750000000 wei (0.00009879375 ETH)`. */
export function weiText(wei: bigint): string {
  return `${wei} wei (${formatWholeUnits(wei, 18)} ETH)`;
}

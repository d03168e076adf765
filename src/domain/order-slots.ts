import type {
  ChainObservation,
  ClaimObservation,
  FundingObservation,
  RefundObservation,
} from './chain-observations.js';
import { countedObservations, knownAssetOf, type AssetOfOrder } from './ethereum-slots.js';
import { preimageMatchesPaymentHash } from './invoice.js';
import type { ChainKind } from './markets.js';
import type { OrderRecord } from './order.js';

/**
 * A matching slot other than the principal is dust when it holds less than the order's amount divided by this:
 * anyone can open a matching slot for 1 wei, so only a slot that locks a tenth of the order carries its funding
 * and may move what the order's funders are told.
 */
export const DUST_DIVISOR = 10n;

/**
 * `principal`: the slot the order's funding state derives from (the one the provider claims); `order`: another
 * slot that carried the order's funding; `dust`: a slot too small to move the order, refundable by its funder.
 */
export type SlotRole = 'principal' | 'order' | 'dust';

/** Where a slot's first funding sits in the chain (the mempool's above every block). */
export interface ChainPosition {
  readonly height: number;
  readonly position: number;
}

/** One matching swap-contract slot of an order: the money of one funder under the order's terms. */
export interface OrderSlot {
  /** Lowercase 0x address; the slot is (order, funder). */
  readonly funder: string;
  readonly role: SlotRole;
  /** Base units its fundings added, the mempool's included, whatever was refunded or claimed since. */
  readonly funded: bigint;
  /** Base units it still holds: funded, less what a refund or claim took (nothing once either took all). */
  readonly held: bigint;
  /** The height from which its funder may refund it, as its first funding said; undefined when none said. */
  readonly refundHeight: number | undefined;
  readonly firstFunding: ChainPosition;
  /** A refund of the slot was observed (in a block or the mempool). */
  readonly refunded: boolean;
  /** A claim of the slot whose preimage opens the order's payment hash was observed. */
  readonly claimed: boolean;
  readonly fundings: readonly FundingObservation[];
  readonly refunds: readonly RefundObservation[];
  readonly claims: readonly ClaimObservation[];
}

/**
 * The order's matching slots (`countedObservations`), principal first, then in the order they were first funded.
 * The principal holds the most (the mempool's included), ties going to the earliest first funding; another slot
 * is the order's when it holds at least a tenth of the order's amount (`DUST_DIVISOR`), dust otherwise. Empty on
 * Bitcoin, where an order has one HTLC and no slots.
 */
export function orderSlots(
  order: OrderRecord,
  observations: readonly ChainObservation[],
  chain: ChainKind,
  assetOf: AssetOfOrder = knownAssetOf,
): OrderSlot[] {
  if (chain !== 'ethereum') return [];
  const byFunder = new Map<string, ChainObservation[]>();
  for (const observation of countedObservations(order, observations, chain, assetOf)) {
    const funder = observation.funder as string;
    const list = byFunder.get(funder) ?? [];
    list.push(observation);
    byFunder.set(funder, list);
  }
  const slots = [...byFunder].map(([funder, list]) => buildSlot(order, funder, inChainOrder(list)));
  slots.sort(byFirstFunding);
  const principal = slots.reduce<Omit<OrderSlot, 'role'> | undefined>(
    (best, slot) => (best === undefined || slot.funded > best.funded ? slot : best),
    undefined,
  );
  const ordered = principal === undefined ? slots : [principal, ...slots.filter((slot) => slot !== principal)];
  return ordered.map((slot) => ({ ...slot, role: roleOf(slot, slot === principal, order.amount) }));
}

/** The slots that carried the order's funding: the principal and every slot that is not dust. */
export function fundingSlots(slots: readonly OrderSlot[]): OrderSlot[] {
  return slots.filter((slot) => slot.role !== 'dust');
}

/** The slot of `funder` (an address in any case), whatever its role; undefined when it has no matching slot. */
export function slotOfFunder(slots: readonly OrderSlot[], funder: string): OrderSlot | undefined {
  const wanted = funder.toLowerCase();
  return slots.find((slot) => slot.funder === wanted);
}

function buildSlot(order: OrderRecord, funder: string, list: readonly ChainObservation[]): Omit<OrderSlot, 'role'> {
  const fundings = list.filter((observation): observation is FundingObservation => observation.kind === 'funding');
  const refunds = list.filter((observation): observation is RefundObservation => observation.kind === 'refund');
  const claims = list.filter(
    (observation): observation is ClaimObservation =>
      observation.kind === 'claim' && preimageMatchesPaymentHash(observation.preimage, order.paymentHash),
  );
  const funded = fundings.reduce((total, funding) => total + funding.amount, 0n);
  const first = fundings[0] as FundingObservation;
  return {
    funder,
    funded,
    held: heldBy(funded, [...refunds, ...claims]),
    refundHeight: fundings.find((funding) => funding.refundHeight !== undefined)?.refundHeight,
    firstFunding: { height: first.block.height, position: first.position },
    refunded: refunds.length > 0,
    claimed: claims.length > 0,
    fundings,
    refunds,
    claims,
  };
}

/** A refund or claim empties the slot on the contract; one that names no amount took everything. */
function heldBy(funded: bigint, takings: readonly (RefundObservation | ClaimObservation)[]): bigint {
  if (takings.some((taking) => taking.amount === undefined)) return 0n;
  const taken = takings.reduce((total, taking) => total + (taking.amount ?? 0n), 0n);
  return funded > taken ? funded - taken : 0n;
}

function roleOf(slot: Omit<OrderSlot, 'role'>, isPrincipal: boolean, amount: bigint): SlotRole {
  if (isPrincipal) return 'principal';
  return slot.funded * DUST_DIVISOR < amount ? 'dust' : 'order';
}

function inChainOrder(list: readonly ChainObservation[]): ChainObservation[] {
  return [...list].sort((a, b) => a.block.height - b.block.height || a.position - b.position);
}

function byFirstFunding(a: Omit<OrderSlot, 'role'>, b: Omit<OrderSlot, 'role'>): number {
  return a.firstFunding.height - b.firstFunding.height || a.firstFunding.position - b.firstFunding.position;
}

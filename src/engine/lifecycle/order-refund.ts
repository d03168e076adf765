import { LnswapError } from '../../domain/errors.js';
import { assetOfIn } from '../../domain/ethereum-slots.js';
import { catalogOf } from '../../domain/market-catalog.js';
import type { Market } from '../../domain/markets.js';
import type { OrderRecord } from '../../domain/order.js';
import { orderSlots, slotOfFunder, type OrderSlot } from '../../domain/order-slots.js';
import {
  deriveCooperativeRefundDetails,
  deriveRefundDetails,
  deriveSlotRefundDetails,
  type RefundDerivation,
} from '../../domain/refund.js';
import type { ChainWatchStore, CooperativeRefundStore, StoreConfiguration } from '../../store/store.js';

/**
 * What the refund of an order reads besides the order: the cooperative refunds its provider signed and, for a
 * slot, the order's stored chain observations.
 */
export type FunderRefundStore = Pick<ChainWatchStore, 'listChainObservations'> &
  Pick<CooperativeRefundStore, 'listCooperativeRefunds'>;

/**
 * The refund details both transports answer: of `funder`'s slot (`funder` already checked to be an address, any
 * case) when given, of the whole order otherwise. A slot whose claimer signed its refund away answers
 * `CooperativeRefund`; without `funder`, the principal slot's signed refund is the order's answer (the slot the
 * user funded), and an order without any signature reads nothing more than before.
 */
export async function deriveOrderRefund(
  store: FunderRefundStore,
  configuration: StoreConfiguration,
  order: OrderRecord,
  market: Market,
  funder: string | undefined,
): Promise<RefundDerivation> {
  if (funder === undefined && market.onchain.chain !== 'ethereum') {
    return deriveRefundDetails(order, market, configuration.chains);
  }
  if (funder !== undefined) return deriveFunderRefund(store, configuration, order, market, funder);
  const signed = await store.listCooperativeRefunds(order.id);
  if (signed.length === 0) return deriveRefundDetails(order, market, configuration.chains);
  const principal = (await slotsOf(store, configuration, order)).find((slot) => slot.role === 'principal');
  const signature = principal === undefined ? undefined : signed.find((refund) => refund.funder === principal.funder);
  return principal === undefined || signature === undefined
    ? deriveRefundDetails(order, market, configuration.chains)
    : deriveCooperativeRefundDetails(order, market, configuration.chains, principal, signature);
}

/**
 * The refund details of `funder`'s slot of the order. The order's record keeps no funder, so the slot is read
 * from the chain observations the watcher stored, for such a request alone. Refused with `OrderHasNoSlots` on a
 * Bitcoin order, `SlotNotFound` when the funder has no matching slot.
 */
async function deriveFunderRefund(
  store: FunderRefundStore,
  configuration: StoreConfiguration,
  order: OrderRecord,
  market: Market,
  funder: string,
): Promise<RefundDerivation> {
  if (market.onchain.chain !== 'ethereum') throw new LnswapError('OrderHasNoSlots');
  const slot = slotOfFunder(await slotsOf(store, configuration, order), funder);
  if (slot === undefined) throw new LnswapError('SlotNotFound');
  const signature = (await store.listCooperativeRefunds(order.id)).find((refund) => refund.funder === slot.funder);
  return signature === undefined
    ? deriveSlotRefundDetails(order, market, configuration.chains, slot)
    : deriveCooperativeRefundDetails(order, market, configuration.chains, slot, signature);
}

async function slotsOf(
  store: FunderRefundStore,
  configuration: StoreConfiguration,
  order: OrderRecord,
): Promise<OrderSlot[]> {
  const observations = await store.listChainObservations('ethereum', [order.id]);
  return orderSlots(order, observations, 'ethereum', assetOfIn(catalogOf(configuration)));
}

import { LnswapError } from '../domain/errors.js';
import { assetOfIn } from '../domain/ethereum-slots.js';
import { catalogOf } from '../domain/market-catalog.js';
import type { Market } from '../domain/markets.js';
import type { OrderRecord } from '../domain/order.js';
import { orderSlots, slotOfFunder } from '../domain/order-slots.js';
import { deriveSlotRefundDetails, type RefundDerivation } from '../domain/refund.js';
import type { ChainWatchStore, StoreConfiguration } from '../store/store.js';

/** What the refund of one funder's slot reads besides the order: the order's stored chain observations. */
export type FunderRefundStore = Pick<ChainWatchStore, 'listChainObservations'>;

/**
 * The refund details of `funder`'s slot of the order (`funder` already checked to be an address, any case), the
 * same answer either transport gives. The order's record keeps no funder, so the slot is read from the chain
 * observations the watcher stored, for such a request alone: the answer without a funder reads nothing more.
 * Refused with `OrderHasNoSlots` on a Bitcoin order, `SlotNotFound` when the funder has no matching slot.
 */
export async function deriveFunderRefund(
  store: FunderRefundStore,
  configuration: StoreConfiguration,
  order: OrderRecord,
  market: Market,
  funder: string,
): Promise<RefundDerivation> {
  if (market.onchain.chain !== 'ethereum') throw new LnswapError('OrderHasNoSlots');
  const observations = await store.listChainObservations('ethereum', [order.id]);
  const slots = orderSlots(order, observations, 'ethereum', assetOfIn(catalogOf(configuration)));
  const slot = slotOfFunder(slots, funder);
  if (slot === undefined) throw new LnswapError('SlotNotFound');
  return deriveSlotRefundDetails(order, market, configuration.chains, slot);
}

import type { ChainObservation } from '../../chains/chain-backend.js';
import type { OrderRecord } from '../../domain/order.js';
import type { ChainWatchStore, OrderChainUpdate, OrderReadStore } from '../../store/store.js';

/** Causes of a move back because a transaction the order showed unconfirmed left the node's mempool. */
const LEFT_MEMPOOL: ReadonlySet<string> = new Set(['fundingLeftMempool', 'refundLeftMempool']);

/**
 * The orders a pass without new blocks can move: those the mempool speaks of now, and those whose transaction
 * was seen there before (`sighted`), which may have left it. Every other order is as the last block left it,
 * so an idle pass reads nothing more of the store.
 */
export function ordersTheMempoolConcerns(
  orders: readonly OrderRecord[],
  mempool: readonly ChainObservation[],
  sighted: ReadonlySet<string>,
): OrderRecord[] {
  const named = new Set(mempool.map((observation) => observation.orderId));
  return orders.filter((order) => named.has(order.id) || sighted.has(order.id));
}

/**
 * Mempool observations of transactions not in any block read: the mempool is read before the tip, so a
 * transaction mined in between is in both, and counts once, as mined.
 */
export function notYetMined(
  mempool: readonly ChainObservation[],
  inBlocks: readonly ChainObservation[],
): ChainObservation[] {
  const mined = new Set(inBlocks.map((observation) => observation.txId));
  return mempool.filter((observation) => !mined.has(observation.txId));
}

/** An update that takes an order back because its unconfirmed transaction is no longer in the mempool. */
export function retreatsFromSighting(update: OrderChainUpdate): boolean {
  return update.moves.some((move) => LEFT_MEMPOOL.has(move.cause.reason));
}

/** What the watcher reads of the store: its own role, and order histories. */
export type SightingStore = ChainWatchStore & Pick<OrderReadStore, 'getOrderHistory'>;

/**
 * Which orders show an unconfirmed transaction because the watcher saw it in the mempool. Their sighting is not
 * stored as an observation (the mempool is re-read on every pass), so an order whose only news was a sighting
 * has no observation to derive from: it is re-derived because it is in this set, and moves back when the
 * transaction leaves the mempool. An unconfirmed transaction can also come from an import, which the watcher
 * must leave alone; the order's history tells them apart (the move a sighting made has a chain cause without a
 * block), read once per order and then kept while the order shows an unconfirmed transaction.
 */
export class SightingMemory {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly store: Pick<OrderReadStore, 'getOrderHistory'>) {}

  async ordersSighted(orders: readonly OrderRecord[], mempool: readonly ChainObservation[]): Promise<Set<string>> {
    for (const observation of mempool) this.known.set(observation.orderId, true);
    const sighted = new Set<string>();
    const showing = new Set<string>();
    for (const order of orders) {
      if (!order.transactions.some((transaction) => transaction.blockHeight === undefined)) continue;
      showing.add(order.id);
      if (await this.wasSighted(order.id)) sighted.add(order.id);
    }
    for (const id of this.known.keys()) if (!showing.has(id)) this.known.delete(id);
    for (const observation of mempool) this.known.set(observation.orderId, true);
    return sighted;
  }

  private async wasSighted(orderId: string): Promise<boolean> {
    const remembered = this.known.get(orderId);
    if (remembered !== undefined) return remembered;
    const cause = (await this.store.getOrderHistory(orderId)).at(-1)?.cause;
    const sighted = cause?.source === 'chain' && cause.blockHeight === undefined && cause.txId !== undefined;
    this.known.set(orderId, sighted);
    return sighted;
  }
}

import type { ChainObservation } from '../chains/chain-backend.js';
import type { OrderRecord } from '../domain/order.js';
import type { OrderChainUpdate } from '../store/store.js';

/** Causes of a move back because a transaction the order showed unconfirmed left the node's mempool. */
const LEFT_MEMPOOL: ReadonlySet<string> = new Set(['fundingLeftMempool', 'refundLeftMempool']);

/**
 * The orders a pass without new blocks can move: those the mempool speaks of now, and those that show a
 * transaction without a block (seen in the mempool before), which may have left it. Every other order is as
 * the last block left it, so an idle pass reads nothing more of the store.
 */
export function ordersTheMempoolConcerns(
  orders: readonly OrderRecord[],
  mempool: readonly ChainObservation[],
): OrderRecord[] {
  const named = new Set(mempool.map((observation) => observation.orderId));
  return orders.filter(
    (order) => named.has(order.id) || order.transactions.some((transaction) => transaction.blockHeight === undefined),
  );
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
  return update.moves.some((move) => move.cause !== undefined && LEFT_MEMPOOL.has(move.cause.reason));
}

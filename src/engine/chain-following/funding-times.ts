import type { BlockRef, ChainBackend, ChainObservation } from '../../chains/chain-backend.js';
import type { OrderRecord } from '../../domain/order.js';

/**
 * `fresh` with the block timestamp added to each funding the fund window may have missed: a funding of an order
 * still waiting for one, read in a range whose head is past that order's expiry. The derivation judges such a
 * funding by the time of its own block (`fundedAfterWindow`); in a range whose head is not past the expiry every
 * block is in time, and nothing is read. One block read per such block but the head, which carries its own; a
 * backend whose blocks carry no timestamp (Bitcoin) is not asked.
 */
export async function withFundingTimes(
  backend: Pick<ChainBackend, 'blockAt'>,
  orders: readonly OrderRecord[],
  fresh: readonly ChainObservation[],
  head: BlockRef,
): Promise<readonly ChainObservation[]> {
  const headTime = head.timestamp;
  if (headTime === undefined) return fresh;
  const waiting = new Set(
    orders
      .filter((order) => order.state === 'WaitingForFundingTx' && order.expiresAt < headTime)
      .map((order) => order.id),
  );
  const heights = new Set(
    fresh
      .filter((observation) => observation.kind === 'funding' && waiting.has(observation.orderId))
      .map((observation) => observation.block.height),
  );
  if (heights.size === 0) return fresh;
  const blocks = new Map<number, BlockRef | undefined>();
  for (const height of heights) blocks.set(height, height === head.height ? head : await backend.blockAt(height));
  return fresh.map((observation) => {
    const block = blocks.get(observation.block.height);
    return block?.hash === observation.block.hash && block.timestamp !== undefined
      ? { ...observation, block: { ...observation.block, timestamp: block.timestamp } }
      : observation;
  });
}

import type { OrderRecord } from '../domain/order.js';

export const DEFAULT_STREAM_BATCH_SIZE = 1000;

/** Reads up to `limit` orders that sort after (`createdAt`, `id`), ordered by createdAt then id. */
export type ReadOrdersAfter = (createdAt: number, id: string, limit: number) => Promise<OrderRecord[]>;

/**
 * All orders by createdAt then id, one keyset-paginated batch at a time: each batch is an indexed range read
 * that does not depend on how far the stream has got, and no cursor stays open between batches.
 */
export async function* streamOrdersInBatches(
  readAfter: ReadOrdersAfter,
  batchSize: number = DEFAULT_STREAM_BATCH_SIZE,
): AsyncIterable<OrderRecord> {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  let afterCreatedAt = Number.MIN_SAFE_INTEGER;
  let afterId = '';
  for (;;) {
    const batch = await readAfter(afterCreatedAt, afterId, batchSize);
    yield* batch;
    const last = batch.at(-1);
    if (last === undefined || batch.length < batchSize) return;
    afterCreatedAt = last.createdAt;
    afterId = last.id;
  }
}

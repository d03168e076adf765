import type { Writable } from 'node:stream';
import { catalogOf } from '../domain/market-catalog.js';
import type { ConfigurationReadStore, SnapshotStore } from '../store/store.js';
import { BufferedWriter } from './buffered-writer.js';
import { snapshotHead, snapshotOrderLine, snapshotTail } from './snapshot-format.js';

export interface ExportSummary {
  readonly orders: number;
}

/** Orders read from the store per query while exporting. */
const EXPORT_BATCH_SIZE = 1000;

/**
 * Writes the whole store as a version-1 snapshot: the header, then one order per line, streamed
 * from the store with backpressure so the export never holds more than a batch of orders.
 */
export async function exportSnapshot(
  store: ConfigurationReadStore & SnapshotStore,
  output: Writable,
): Promise<ExportSummary> {
  const writer = new BufferedWriter(output);
  try {
    const configuration = await store.getConfiguration();
    const catalog = catalogOf(configuration);
    await writer.write(snapshotHead(configuration));
    let orders = 0;
    for await (const order of store.streamOrders(EXPORT_BATCH_SIZE)) {
      await writer.write(snapshotOrderLine(order, orders === 0, catalog));
      orders++;
    }
    await writer.write(snapshotTail(orders));
    await writer.flush();
    return { orders };
  } finally {
    writer.release();
  }
}

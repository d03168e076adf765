import type { OrderRecord } from '../domain/order.js';
import type { ImportSession, Store, StoreConfiguration } from '../store/store.js';
import { InvoiceDecoder } from './invoice-decoder.js';
import { TopLevelObjectScanner, type ScanEvent } from './object-scanner.js';
import { FieldError, recordError, SnapshotError } from './snapshot-error.js';
import { HEADER_KEYS, ORDERS_KEY } from './snapshot-format.js';
import { validateConfiguration, validateVersion, type SnapshotHeader } from './validate-configuration.js';
import { orderIdForMessages, validateOrder } from './validate-order.js';

export interface ImportSummary {
  readonly markets: number;
  readonly providers: number;
  readonly orders: number;
}

export interface ImportOptions {
  /** Orders written per store call. */
  readonly batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 1000;

type HeaderKey = (typeof HEADER_KEYS)[number];

function isHeaderKey(key: string): key is HeaderKey {
  return (HEADER_KEYS as readonly string[]).includes(key);
}

/**
 * Loads a version-1 snapshot as it streams in, inside one store transaction: every record is
 * validated, and the first bad one aborts the import with nothing written. Orders go to the
 * store in batches, so memory stays flat however many there are.
 */
export async function importSnapshot(
  store: Store,
  input: AsyncIterable<Buffer | string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  let summary: ImportSummary | undefined;
  await store.importAtomically(async (session) => {
    const importer = new SnapshotImporter(session, options.batchSize ?? DEFAULT_BATCH_SIZE);
    for await (const chunk of input) {
      await importer.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    }
    summary = await importer.finish();
  });
  return summary!;
}

class SnapshotImporter {
  private readonly scanner = new TopLevelObjectScanner(ORDERS_KEY);
  private readonly invoices = new InvoiceDecoder();
  private readonly header: Partial<Record<HeaderKey, unknown>> = {};
  private configuration: StoreConfiguration | undefined;
  private offeredMarkets: ReadonlySet<string> | undefined;
  private sawOrders = false;
  private batch: OrderRecord[] = [];
  private orderCount = 0;
  private readonly indexById = new Map<string, number>();
  /** While `markets` is still unread: the first order of each market, checked once it is read. */
  private readonly firstOrderByMarket = new Map<string, { index: number; id: string }>();

  constructor(
    private readonly session: ImportSession,
    private readonly batchSize: number,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.scanner.push(chunk)) await this.handle(event);
  }

  async finish(): Promise<ImportSummary> {
    this.scanner.end();
    for (const key of [...HEADER_KEYS, ORDERS_KEY]) {
      const present = key === ORDERS_KEY ? this.sawOrders : Object.hasOwn(this.header, key);
      if (!present) throw new SnapshotError(`${key}: required`);
    }
    const configuration = this.configuration!;
    this.checkDeferredMarkets(this.offeredMarkets!);
    await this.flush();
    return {
      markets: configuration.markets.length,
      providers: configuration.providers.length,
      orders: this.orderCount,
    };
  }

  private async handle(event: ScanEvent): Promise<void> {
    switch (event.kind) {
      case 'member':
        return this.acceptHeaderMember(event.key, event.value);
      case 'arrayStart':
        this.sawOrders = true;
        return;
      case 'element':
        return this.acceptOrder(event.index, event.value);
    }
  }

  private async acceptHeaderMember(key: string, value: unknown): Promise<void> {
    if (!isHeaderKey(key)) throw new SnapshotError(`${key}: unknown field`);
    if (key === 'version') validateVersion(value);
    this.header[key] = value;
    if (HEADER_KEYS.every((headerKey) => Object.hasOwn(this.header, headerKey))) {
      this.configuration = validateConfiguration(this.header as SnapshotHeader);
      this.offeredMarkets = new Set(this.configuration.markets);
      await this.session.writeConfiguration(this.configuration);
    }
  }

  private async acceptOrder(index: number, value: unknown): Promise<void> {
    const offeredMarkets = this.offeredMarkets;
    let order: OrderRecord;
    try {
      order = validateOrder(value, { invoices: this.invoices, offeredMarkets });
      const earlier = this.indexById.get(order.id);
      if (earlier !== undefined) throw new FieldError('id', `repeats orders[${earlier}]`);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      throw recordError(orderLabel(index, orderIdForMessages(value)), error);
    }
    this.indexById.set(order.id, index);
    if (offeredMarkets === undefined && !this.firstOrderByMarket.has(order.market)) {
      this.firstOrderByMarket.set(order.market, { index, id: order.id });
    }
    this.orderCount++;
    this.batch.push(order);
    if (this.batch.length >= this.batchSize) await this.flush();
  }

  private checkDeferredMarkets(offeredMarkets: ReadonlySet<string>): void {
    const unoffered = [...this.firstOrderByMarket.entries()]
      .filter(([market]) => !offeredMarkets.has(market))
      .sort(([, a], [, b]) => a.index - b.index)[0];
    if (unoffered !== undefined) {
      const [, { index, id }] = unoffered;
      throw new SnapshotError(`${orderLabel(index, id)}: market: not one of the snapshot's markets`);
    }
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    await this.session.writeOrders(batch);
  }
}

function orderLabel(index: number, id: string | undefined): string {
  return id === undefined ? `orders[${index}]` : `orders[${index}] (id ${id})`;
}

import { catalogOf, KNOWN_CATALOG, type MarketCatalog } from '../domain/market-catalog.js';
import type { OrderRecord } from '../domain/order.js';
import type { ImportSession, Store, StoreConfiguration } from '../store/store.js';
import { InvoiceChecks, type InvoiceRecord } from './invoice-checks.js';
import { TopLevelObjectScanner, type ScanEvent } from './object-scanner.js';
import { LIVE_ORDER_STATES } from '../domain/states.js';
import { FieldError, recordError, SnapshotError } from './snapshot-error.js';
import { HEADER_KEYS, ORDERS_KEY, TOKENS_KEY } from './snapshot-format.js';
import {
  validateConfiguration,
  validateTokens,
  validateVersion,
  type SnapshotHeader,
} from './validate-configuration.js';
import { INVOICE_NOT_SIGNED_BOLT11, orderIdForMessages, validateOrder } from './validate-order.js';
import { OrderIdIndex } from './order-id-index.js';
import { PaymentHashIndex } from './payment-hash-index.js';

export interface ImportSummary {
  readonly markets: number;
  readonly providers: number;
  readonly orders: number;
}

export interface ImportOptions {
  /** Orders written per store call. */
  readonly batchSize?: number;
  /** Signatures checked in this process before checker processes take over. */
  readonly inlineSignatureChecks?: number;
}

const DEFAULT_BATCH_SIZE = 1000;
/** Below this many invoices, starting checker processes costs more than it saves. */
const DEFAULT_INLINE_SIGNATURE_CHECKS = 2000;

const LIVE_STATES: ReadonlySet<string> = new Set(LIVE_ORDER_STATES);

/** Fields validateOrder checks before the invoice: their errors come before a bad signature's. */
const FIELDS_BEFORE_INVOICE: ReadonlySet<string> = new Set(['', 'id', 'market']);

/** A bad record, with what decides whether an earlier bad invoice signature is to be reported instead. */
class RecordFailure extends SnapshotError {
  constructor(
    readonly index: number,
    /** Whether the record's own invoice signature is checked before the field that failed. */
    readonly afterInvoiceSignature: boolean,
    error: SnapshotError,
  ) {
    super(error.message);
  }
}

/** Thrown to stop streaming once a signature is known bad; the import reports the earliest one. */
class BadSignatureSeen extends Error {}

type HeaderKey = (typeof HEADER_KEYS)[number];

function isHeaderKey(key: string): key is HeaderKey {
  return (HEADER_KEYS as readonly string[]).includes(key);
}

/**
 * Loads a version-1 snapshot as it streams in, inside one store transaction: every record is
 * validated, and the first bad one aborts the import with nothing written. Orders go to the
 * store in batches; what stays behind per order is its id's 20-byte slot in `indexById`.
 */
export async function importSnapshot(
  store: Store,
  input: AsyncIterable<Buffer | string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  let summary: ImportSummary | undefined;
  const invoices = new InvoiceChecks(options.inlineSignatureChecks ?? DEFAULT_INLINE_SIGNATURE_CHECKS);
  try {
    await store.importAtomically(
      async (session) => {
        const importer = new SnapshotImporter(session, invoices, options.batchSize ?? DEFAULT_BATCH_SIZE);
        try {
          for await (const chunk of input) {
            await importer.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
          }
          summary = await importer.finish();
        } catch (error) {
          throw await firstFailure(error, invoices);
        }
      },
      // A repeated id is refused here, with the record it repeats named, so the store need not look for one.
      { distinctOrderIds: true },
    );
  } finally {
    await invoices.close();
  }
  return summary!;
}

/**
 * Signatures are checked behind the scan, so when something fails, a record read before it may
 * still turn out to carry a bad signature: the import reports whichever an in-order check meets first.
 */
async function firstFailure(error: unknown, invoices: InvoiceChecks): Promise<unknown> {
  const bad = await invoices.earliestBadSignature();
  if (bad === undefined) return error instanceof BadSignatureSeen ? new Error('lost track of a bad signature') : error;
  if (error instanceof RecordFailure) {
    const recordFirst = error.index < bad.index || (error.index === bad.index && !error.afterInvoiceSignature);
    if (recordFirst) return error;
  }
  return badSignatureError(bad);
}

function badSignatureError(record: InvoiceRecord): SnapshotError {
  return recordError(orderLabel(record.index, record.id), new FieldError('invoice', INVOICE_NOT_SIGNED_BOLT11));
}

class SnapshotImporter {
  private readonly scanner = new TopLevelObjectScanner(ORDERS_KEY);
  private readonly header: Partial<Record<HeaderKey | typeof TOKENS_KEY, unknown>> = {};
  /** Known markets, and those of `tokens` once read: orders are checked against it as they stream in. */
  private catalog: MarketCatalog = KNOWN_CATALOG;
  private configuration: StoreConfiguration | undefined;
  private offeredMarkets: ReadonlySet<string> | undefined;
  private sawOrders = false;
  private batch: OrderRecord[] = [];
  private orderCount = 0;
  private readonly indexById = new OrderIdIndex();
  /** The live order of each payment hash that has one: a second is refused, as the store's unique index would. */
  private readonly liveOrderByPaymentHash = new PaymentHashIndex();
  /** While `markets` is still unread: the first order of each market, checked once it is read. */
  private readonly firstOrderByMarket = new Map<string, { index: number; id: string }>();

  constructor(
    private readonly session: ImportSession,
    private readonly invoices: InvoiceChecks,
    private readonly batchSize: number,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.scanner.push(chunk)) await this.handle(event);
  }

  async finish(): Promise<ImportSummary> {
    this.scanner.end();
    await this.flush();
    // The store builds what it put off (SQLite: the indexes) while the last signatures are being checked.
    await this.session.finishOrders();
    if ((await this.invoices.earliestBadSignature()) !== undefined) throw new BadSignatureSeen();
    for (const key of [...HEADER_KEYS, ORDERS_KEY]) {
      const present = key === ORDERS_KEY ? this.sawOrders : Object.hasOwn(this.header, key);
      if (!present) throw new SnapshotError(`${key}: required`);
    }
    const configuration = this.configuration!;
    this.checkDeferredMarkets(this.offeredMarkets!);
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
    if (key === TOKENS_KEY) return this.acceptTokens(value);
    if (!isHeaderKey(key)) throw new SnapshotError(`${key}: unknown field`);
    if (key === 'version') validateVersion(value);
    this.header[key] = value;
    if (HEADER_KEYS.every((headerKey) => Object.hasOwn(this.header, headerKey))) {
      this.configuration = validateConfiguration(this.header as SnapshotHeader);
      this.offeredMarkets = new Set(this.configuration.markets);
      await this.session.writeConfiguration(this.configuration);
    }
  }

  /** Markets, providers and orders may name a token's market, so its definition must come first. */
  private acceptTokens(value: unknown): void {
    if (Object.hasOwn(this.header, TOKENS_KEY)) throw new SnapshotError(`${TOKENS_KEY}: repeated`);
    if (this.sawOrders || Object.hasOwn(this.header, 'markets') || Object.hasOwn(this.header, 'providers')) {
      throw new SnapshotError(`${TOKENS_KEY}: must come before markets, providers and orders`);
    }
    this.catalog = catalogOf({ tokens: validateTokens(value) });
    this.header[TOKENS_KEY] = value;
  }

  private async acceptOrder(index: number, value: unknown): Promise<void> {
    const offeredMarkets = this.offeredMarkets;
    const idForMessages = orderIdForMessages(value);
    this.invoices.beginRecord(index, idForMessages);
    let order: OrderRecord;
    try {
      order = validateOrder(value, { invoices: this.invoices, catalog: this.catalog, offeredMarkets });
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      const afterInvoiceSignature = !FIELDS_BEFORE_INVOICE.has(error.field);
      throw new RecordFailure(index, afterInvoiceSignature, recordError(orderLabel(index, idForMessages), error));
    }
    // Recorded at once: should a later check refuse this record, the import is over anyway.
    const earlier = this.indexById.recordFirst(order.id, index);
    if (earlier !== undefined) {
      const repeated = recordError(
        orderLabel(index, idForMessages),
        new FieldError('id', `repeats orders[${earlier}]`),
      );
      throw new RecordFailure(index, true, repeated);
    }
    this.refuseSecondLiveOrder(index, idForMessages, order);
    if (this.invoices.anyBadSignature) throw new BadSignatureSeen();
    if (offeredMarkets === undefined && !this.firstOrderByMarket.has(order.market)) {
      this.firstOrderByMarket.set(order.market, { index, id: order.id });
    }
    this.orderCount++;
    this.batch.push(order);
    if (this.batch.length >= this.batchSize) await this.flush();
  }

  private refuseSecondLiveOrder(index: number, idForMessages: string | undefined, order: OrderRecord): void {
    if (!LIVE_STATES.has(order.state)) return;
    const live = this.liveOrderByPaymentHash.recordFirst(order.paymentHash, index);
    if (live === undefined) return;
    const problem = `${order.state}, but ${orderLabel(live, this.indexById.idAt(live))} is already live for the same payment hash`;
    throw new RecordFailure(
      index,
      true,
      recordError(orderLabel(index, idForMessages), new FieldError('state', problem)),
    );
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
    await this.invoices.keepUp();
  }
}

function orderLabel(index: number, id: string | undefined): string {
  return id === undefined ? `orders[${index}]` : `orders[${index}] (id ${id})`;
}

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { markerMatches, readMarker, writeMarker } from './markers.js';
import { Reservoir } from './reservoir.js';
import { SeededRandom } from './seeded-random.js';

/**
 * Far more orders than the response cache holds (16 MB of answers is some 15,000 orders), so that load spread over
 * the sample measures the uncached read path.
 */
export const COLD_SAMPLE_SIZE = 200_000;

/** Random orders and random invoices of the whole store, uniform over each. */
export interface ColdSample {
  readonly orderIds: readonly string[];
  readonly invoiceHashes: readonly string[];
}

/** One row of the store, in invoice-hash order (the orders of one invoice come together). */
export interface OrderKey {
  readonly id: string;
  readonly invoiceHash: string;
}

/**
 * Draws `size` orders and `size` invoices uniformly from rows that come grouped by invoice hash, in one pass and
 * in bounded memory; the same rows and seed give the same sample.
 */
export function drawColdSample(rows: Iterable<OrderKey>, size: number, seed: string): ColdSample {
  const orders = new Reservoir<string>(size, new SeededRandom(`${seed}-orders`));
  const invoices = new Reservoir<string>(size, new SeededRandom(`${seed}-invoices`));
  let previousHash: string | undefined;
  for (const row of rows) {
    orders.offer(row.id);
    if (row.invoiceHash !== previousHash) invoices.offer(row.invoiceHash);
    previousHash = row.invoiceHash;
  }
  return { orderIds: orders.items(), invoiceHashes: invoices.items() };
}

/**
 * Every order's id and invoice hash, walked along the invoice-hash index (its entries hold both), which is far
 * smaller than the table: a seeded pass over 10,000,000 orders reads the index once.
 */
function* orderKeys(db: Database.Database): Generator<OrderKey> {
  const rows = db
    .prepare('SELECT id, invoice_hash AS invoiceHash FROM orders ORDER BY invoice_hash, created_at DESC, id DESC')
    .iterate() as IterableIterator<OrderKey>;
  yield* rows;
}

/**
 * The cold sample of the SQLite dataset at `sqliteFile`, drawn once and kept in `sampleFile` beside it; the marker
 * (same generator version and order count) says the file is complete and of this dataset.
 */
export function prepareColdSample(
  files: { sqliteFile: string; sampleFile: string; markerFile: string },
  generator: { version: number; orders: number },
  log: (message: string) => void,
): ColdSample {
  if (
    markerMatches(readMarker(files.markerFile), generator.version, generator.orders) &&
    existsSync(files.sampleFile)
  ) {
    return JSON.parse(readFileSync(files.sampleFile, 'utf8')) as ColdSample;
  }
  log(`drawing the cold sample (${COLD_SAMPLE_SIZE.toLocaleString('en')} orders and invoices) from the dataset`);
  const started = performance.now();
  const db = new Database(files.sqliteFile, { readonly: true, fileMustExist: true });
  let sample: ColdSample;
  try {
    sample = drawColdSample(
      orderKeys(db),
      COLD_SAMPLE_SIZE,
      `lnswap-bench-cold-${generator.version}-${generator.orders}`,
    );
  } finally {
    db.close();
  }
  const partial = `${files.sampleFile}.partial`;
  writeFileSync(partial, JSON.stringify(sample));
  renameSync(partial, files.sampleFile);
  const buildSeconds = Math.round((performance.now() - started) / 100) / 10;
  writeMarker(files.markerFile, {
    generatorVersion: generator.version,
    orders: generator.orders,
    builtAt: new Date().toISOString(),
    buildSeconds,
  });
  log(`drew the cold sample in ${buildSeconds} s`);
  return sample;
}

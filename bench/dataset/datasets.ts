import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { OrderRecord } from '../../src/domain/order.js';
import { ORDER_STATES } from '../../src/domain/states.js';
import { openStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import type { Store } from '../../src/store/store.js';
import { lnswapCommand } from '../launcher.js';
import { CACHE_DIR, FULL_ORDER_COUNT } from '../settings.js';
import { runNode } from '../processes.js';
import { prepareColdSample, type ColdSample } from './cold-sample.js';
import { benchConfiguration } from './configuration.js';
import { markerMatches, readMarker, removeMarker, writeMarker } from './markers.js';
import { GENERATOR_VERSION, type DatasetSample } from './order-generator.js';
import { generateChunks, joinSamples } from './parallel-generation.js';
import { vacuumAnalyze } from './vacuum.js';

const WRITE_BATCH = 5000;
const PROGRESS_EVERY = 100_000;

export interface Datasets {
  readonly sqliteUrl: string;
  /** Absent when the run leaves PostgreSQL out (BENCH_STORES=sqlite). */
  readonly postgresUrl?: string;
  readonly snapshotFile: string;
  readonly sample: DatasetSample;
  readonly coldSample: ColdSample;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function progress(label: string, done: number, total: number, started: number): void {
  if (done % PROGRESS_EVERY !== 0 && done !== total) return;
  const seconds = (performance.now() - started) / 1000;
  const count = `${done.toLocaleString('en')} / ${total.toLocaleString('en')} orders`;
  log(`${label}: ${count}, ${Math.round(done / seconds)} orders/s`);
}

function cachePaths(orders: number) {
  const dir = join(CACHE_DIR, `orders-${orders}`);
  return {
    dir,
    sqliteFile: join(dir, 'lnswap.sqlite'),
    sqliteMarker: join(dir, 'lnswap.sqlite.marker.json'),
    sampleFile: join(dir, 'sample.json'),
    coldSampleFile: join(dir, 'cold-sample.json'),
    coldSampleMarker: join(dir, 'cold-sample.marker.json'),
    postgresMarker: join(dir, 'postgres.marker.json'),
    snapshotFile: join(dir, 'snapshot.json'),
    snapshotMarker: join(dir, 'snapshot.marker.json'),
  };
}

/** The full dataset lives in schema lnswap_bench; other sizes get their own, so switching sizes rebuilds nothing. */
function postgresSchema(orders: number): string {
  return orders === FULL_ORDER_COUNT ? 'lnswap_bench' : `lnswap_bench_${orders}`;
}

function withSchema(baseUrl: string, schema: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set('schema', schema);
  return url.toString();
}

async function countOrders(url: string): Promise<number | undefined> {
  let store: Store | undefined;
  try {
    store = await openStore(url);
    return await store.countOrdersInStates(ORDER_STATES);
  } catch {
    return undefined;
  } finally {
    await store?.close();
  }
}

/** Runs `build` and then writes the marker that lets later runs reuse what it built. */
async function buildAndMark(
  markerFile: string,
  orders: number,
  build: () => Promise<void>,
  bytesOf?: () => number,
): Promise<void> {
  const started = performance.now();
  await build();
  writeMarker(markerFile, {
    generatorVersion: GENERATOR_VERSION,
    orders,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    ...(bytesOf === undefined ? {} : { bytes: bytesOf() }),
  });
}

/** Generated through the project's own store code, in one import transaction like `lnswap import`. */
async function buildSqlite(paths: ReturnType<typeof cachePaths>, orders: number): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${paths.sqliteFile}${suffix}`, { force: true });
  const started = performance.now();
  const samples: { index: number; sample: DatasetSample }[] = [];
  const store = await openStore(`sqlite:${paths.sqliteFile}`);
  try {
    await store.importAtomically(async (session) => {
      await session.writeConfiguration(benchConfiguration());
      let written = 0;
      for await (const chunk of generateChunks(orders)) {
        for (let offset = 0; offset < chunk.orders.length; offset += WRITE_BATCH) {
          await session.writeOrders(chunk.orders.slice(offset, offset + WRITE_BATCH));
        }
        samples.push({ index: chunk.index, sample: chunk.sample });
        written += chunk.orders.length;
        progress('generating the SQLite dataset', written, orders, started);
      }
    });
  } finally {
    await store.close();
  }
  writeFileSync(paths.sampleFile, JSON.stringify(joinSamples(samples)));
}

async function dropSchema(baseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(baseUrl).connectionString });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Copies the SQLite dataset order by order through both stores, so the two targets serve the same data. */
async function buildPostgres(
  sqliteUrl: string,
  postgresBaseUrl: string,
  schema: string,
  orders: number,
): Promise<void> {
  await dropSchema(postgresBaseUrl, schema);
  const started = performance.now();
  const source = await openStore(sqliteUrl);
  const target = await openStore(withSchema(postgresBaseUrl, schema));
  try {
    await target.importAtomically(async (session) => {
      await session.writeConfiguration(await source.getConfiguration());
      let batch: OrderRecord[] = [];
      let copied = 0;
      for await (const order of source.streamOrders(WRITE_BATCH)) {
        batch.push(order);
        if (batch.length === WRITE_BATCH) {
          await session.writeOrders(batch);
          copied += batch.length;
          batch = [];
          progress('copying the dataset to PostgreSQL', copied, orders, started);
        }
      }
      if (batch.length > 0) await session.writeOrders(batch);
    });
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
  await vacuumAnalyze(parsePostgresUrl(postgresBaseUrl).connectionString, schema);
}

/** `lnswap export` of the SQLite dataset: the file `lnswap import` is timed on. */
async function buildSnapshot(sqliteUrl: string, snapshotFile: string): Promise<void> {
  const partial = `${snapshotFile}.partial`;
  const result = await runNode(lnswapCommand('export', '--db', sqliteUrl), { stdoutFile: partial });
  if (result.exitCode !== 0) {
    rmSync(partial, { force: true });
    throw new Error(`lnswap export failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
  }
  renameSync(partial, snapshotFile);
  log(`exported the snapshot in ${result.seconds.toFixed(1)} s (${Math.round(statSync(snapshotFile).size / 1e6)} MB)`);
}

/** The SQLite dataset, generated unless `.bench-cache/` holds a complete one of this generator version. */
async function prepareSqlite(paths: ReturnType<typeof cachePaths>, orders: number): Promise<string> {
  const sqliteUrl = `sqlite:${paths.sqliteFile}`;
  const sqliteReady =
    markerMatches(readMarker(paths.sqliteMarker), GENERATOR_VERSION, orders) &&
    existsSync(paths.sampleFile) &&
    (await countOrders(sqliteUrl)) === orders;
  if (!sqliteReady) {
    // Everything derived from the SQLite dataset is stale with it.
    for (const marker of [paths.sqliteMarker, paths.postgresMarker, paths.snapshotMarker, paths.coldSampleMarker]) {
      removeMarker(marker);
    }
    log(`generating ${orders.toLocaleString('en')} orders into ${paths.sqliteFile}`);
    await buildAndMark(paths.sqliteMarker, orders, () => buildSqlite(paths, orders));
  }
  return sqliteUrl;
}

/** The snapshot of the SQLite dataset, exported unless `.bench-cache/` holds a complete one. */
async function prepareSnapshotOf(
  paths: ReturnType<typeof cachePaths>,
  orders: number,
  sqliteUrl: string,
): Promise<void> {
  const snapshotMarker = readMarker(paths.snapshotMarker);
  const snapshotReady =
    markerMatches(snapshotMarker, GENERATOR_VERSION, orders) &&
    existsSync(paths.snapshotFile) &&
    statSync(paths.snapshotFile).size === snapshotMarker?.bytes;
  if (!snapshotReady) {
    removeMarker(paths.snapshotMarker);
    log('exporting the dataset as a snapshot with `lnswap export`');
    await buildAndMark(
      paths.snapshotMarker,
      orders,
      () => buildSnapshot(sqliteUrl, paths.snapshotFile),
      () => statSync(paths.snapshotFile).size,
    );
  }
}

/** The snapshot file `lnswap import` is timed on, without the PostgreSQL copy the read scenarios need. */
export async function prepareSnapshot(orders: number): Promise<string> {
  const paths = cachePaths(orders);
  mkdirSync(paths.dir, { recursive: true });
  await prepareSnapshotOf(paths, orders, await prepareSqlite(paths, orders));
  return paths.snapshotFile;
}

/**
 * Reuses what `.bench-cache/` and the PostgreSQL schema hold when their markers say they are complete and of this
 * generator version (and the stores still count every order); otherwise rebuilds them. Without `postgresBaseUrl`
 * PostgreSQL is left alone (a 10,000,000-order copy takes the better part of an hour).
 */
export async function prepareDatasets(orders: number, postgresBaseUrl: string | undefined): Promise<Datasets> {
  const paths = cachePaths(orders);
  mkdirSync(paths.dir, { recursive: true });
  const sqliteUrl = await prepareSqlite(paths, orders);
  const postgresUrl =
    postgresBaseUrl === undefined ? undefined : await preparePostgres(paths, orders, sqliteUrl, postgresBaseUrl);
  await prepareSnapshotOf(paths, orders, sqliteUrl);
  const coldSample = prepareColdSample(
    { sqliteFile: paths.sqliteFile, sampleFile: paths.coldSampleFile, markerFile: paths.coldSampleMarker },
    { version: GENERATOR_VERSION, orders },
    log,
  );
  const sample = JSON.parse(readFileSync(paths.sampleFile, 'utf8')) as DatasetSample;
  return {
    sqliteUrl,
    ...(postgresUrl === undefined ? {} : { postgresUrl }),
    snapshotFile: paths.snapshotFile,
    sample,
    coldSample,
  };
}

async function preparePostgres(
  paths: ReturnType<typeof cachePaths>,
  orders: number,
  sqliteUrl: string,
  postgresBaseUrl: string,
): Promise<string> {
  const schema = postgresSchema(orders);
  const postgresUrl = withSchema(postgresBaseUrl, schema);
  const postgresReady =
    markerMatches(readMarker(paths.postgresMarker), GENERATOR_VERSION, orders) &&
    (await countOrders(postgresUrl)) === orders;
  if (!postgresReady) {
    removeMarker(paths.postgresMarker);
    log(`copying the dataset into PostgreSQL schema ${schema}`);
    await buildAndMark(paths.postgresMarker, orders, () => buildPostgres(sqliteUrl, postgresBaseUrl, schema, orders));
  }
  return postgresUrl;
}

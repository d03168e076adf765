/**
 * The Bitcoin watcher's cost and speed (issue 34): requests to the node per block and per minute of mempool
 * traffic, and the time from a funding entering the mempool to its wallet's `stateChanged`, with 100 and 10,000
 * live orders. `npm run bench:bitcoin` alone; `npm run bench` runs it after the read benchmark, or alone with
 * BENCH_SCENARIOS=bitcoin-watch.
 */
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { writeGeneratedSection } from '../report/benchmarks-file.js';
import { currentLoadAverage, describeMachine } from '../report/machine.js';
import { BENCHMARKS_FILE } from '../settings.js';
import { measureBitcoinWatch } from './measure.js';
import { BITCOIN_WATCH_RUN, formatBitcoinWatchRun } from './report.js';
import { isSmokeBitcoinWatch, readBitcoinWatchSettings } from './settings.js';

const started = performance.now();

function log(message: string): void {
  process.stderr.write(`[bench:bitcoin +${((performance.now() - started) / 1000).toFixed(0)} s] ${message}\n`);
}

export async function runBitcoinWatch(): Promise<void> {
  const settings = readBitcoinWatchSettings();
  const machine = describeMachine();
  const date = new Date().toISOString();
  ensureBuilt(log);
  const measurement = await measureBitcoinWatch(settings, log);
  const report = formatBitcoinWatchRun({
    date,
    machine,
    loadAverageAtEnd: currentLoadAverage(),
    settings,
    smoke: isSmokeBitcoinWatch(settings),
    measurement,
  });
  process.stdout.write(`\n${report}\n`);
  writeGeneratedSection(BENCHMARKS_FILE, BITCOIN_WATCH_RUN, report);
  log(`wrote the Bitcoin watcher run into ${BENCHMARKS_FILE}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runBitcoinWatch().catch((error: unknown) => {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });
}

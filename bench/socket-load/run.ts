/**
 * The socket.io load figures (issue 16): quotes per second one instance sustains with three providers, then
 * 5,000 subscribers following orders that each move once a second. `npm run bench:sockets` alone; `npm run bench`
 * runs it after the read benchmark unless BENCH_SOCKET_LOAD=0.
 */
import { pathToFileURL } from 'node:url';
import { describeMachine } from '../report/machine.js';
import { BENCHMARKS_FILE } from '../settings.js';
import { writeGeneratedSection } from '../report/benchmarks-file.js';
import { formatSocketLoadRun, SOCKET_LOAD_RUN } from './report.js';
import { readSocketLoadSettings } from './settings.js';
import { loadOneStore, type StoreLoadResult } from './socket-load.js';

function log(message: string): void {
  process.stderr.write(`[bench:sockets] ${message}\n`);
}

export async function runSocketLoad(): Promise<void> {
  const settings = readSocketLoadSettings();
  const machine = describeMachine();
  const date = new Date().toISOString();
  const results: StoreLoadResult[] = [];
  for (const store of settings.stores) results.push(await loadOneStore(store, settings, log));
  const report = formatSocketLoadRun({ date, machine, settings, results });
  process.stdout.write(`\n${report}\n`);
  writeGeneratedSection(BENCHMARKS_FILE, SOCKET_LOAD_RUN, report);
  log(`wrote the socket load run into ${BENCHMARKS_FILE}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runSocketLoad().catch((error: unknown) => {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });
}

/**
 * `lnswap import` of the bench snapshot, timed as bench/import-timing.ts times it, for one or more builds of
 * the CLI in turn, round after round, so that a codec's replacement can be checked on the whole import and
 * drift on the machine falls on every build alike. Without arguments, this tree's build alone.
 *
 *   node --import tsx bench/codec-trial/time-imports.ts [path/to/dist/src/cli/main.js ...]
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../build.js';
import { prepareSnapshot } from '../dataset/datasets.js';
import { runNode } from '../processes.js';
import { median } from '../report/summary.js';
import { CACHE_DIR, CLI_ENTRY, readSettings } from '../settings.js';

function log(message: string): void {
  process.stderr.write(`[time-imports] ${message}\n`);
}

ensureBuilt(log);
const { orders, rounds } = readSettings();
const snapshotFile = await prepareSnapshot(orders);
const entries = process.argv.length > 2 ? process.argv.slice(2) : [CLI_ENTRY];
const database = join(CACHE_DIR, 'codec-trial-import.sqlite');
const removeDatabase = () => {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
};
const seconds = entries.map((): number[] => []);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
log(`load average ${load()} at the start`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const [index, entry] of entries.entries()) {
      removeDatabase();
      const result = await runNode([entry, 'import', snapshotFile, '--db', `sqlite:${database}`]);
      if (result.exitCode !== 0) throw new Error(`${entry}: import failed: ${result.stderr.trim()}`);
      seconds[index]!.push(result.seconds);
      log(`round ${round + 1}, ${entry}: ${result.seconds.toFixed(1)} s (load ${load()})`);
    }
  }
} finally {
  removeDatabase();
}
for (const [index, entry] of entries.entries()) {
  const runs = seconds[index]!.map((value) => value.toFixed(1)).join(', ');
  process.stdout.write(`${entry}: median ${median(seconds[index]!).toFixed(1)} s of ${runs}\n`);
}
process.stdout.write(`load average ${load()} at the end\n`);

/**
 * `lnswap import` of the bench snapshot, timed as bench/import-timing.ts times it, for one or more builds of
 * the CLI in turn, round after round, so that a codec's replacement can be checked on the whole import and
 * drift on the machine falls on every build alike. Without arguments, this tree's build alone. Besides the wall
 * time, the CPU time of the importer and its signature checkers (GNU time, which counts the children the
 * importer waited for): on a machine shared with other jobs, the wall time mostly measures them.
 *
 *   node --import tsx bench/codec-trial/time-imports.ts [path/to/dist/src/cli/main.js ...]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { prepareSnapshot } from '../dataset/datasets.js';
import { median } from '../report/summary.js';
import { CACHE_DIR, CLI_ENTRY, readSettings } from '../settings.js';

/** Runs `command` to the end; its exit code, wall seconds and what it said on stderr. */
async function runCommand(command: string, args: readonly string[]) {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exitCode = await new Promise<number>((resolveExit) => child.once('close', (code) => resolveExit(code ?? 1)));
  return { exitCode, seconds: (performance.now() - started) / 1000, stderr };
}

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
const cpuFile = join(CACHE_DIR, 'codec-trial-import.cpu');
const seconds = entries.map((): number[] => []);
const cpuSeconds = entries.map((): number[] => []);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
log(`load average ${load()} at the start`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const [index, entry] of entries.entries()) {
      removeDatabase();
      const command = [
        '-f',
        '%U %S',
        '-o',
        cpuFile,
        process.execPath,
        entry,
        'import',
        snapshotFile,
        '--db',
        `sqlite:${database}`,
      ];
      const result = await runCommand('/usr/bin/time', command);
      if (result.exitCode !== 0) throw new Error(`${entry}: import failed: ${result.stderr.trim()}`);
      const [user, system] = readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
      seconds[index]!.push(result.seconds);
      cpuSeconds[index]!.push(user! + system!);
      log(
        `round ${round + 1}, ${entry}: ${result.seconds.toFixed(1)} s wall, ${(user! + system!).toFixed(1)} s CPU (load ${load()})`,
      );
    }
  }
} finally {
  removeDatabase();
  rmSync(cpuFile, { force: true });
}
for (const [index, entry] of entries.entries()) {
  const runs = (values: number[]) =>
    `median ${median(values).toFixed(1)} s of ${values.map((value) => value.toFixed(1)).join(', ')}`;
  process.stdout.write(`${entry}: wall ${runs(seconds[index]!)}; CPU ${runs(cpuSeconds[index]!)}\n`);
}
process.stdout.write(`load average ${load()} at the end\n`);

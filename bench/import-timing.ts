import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lnswapCommand } from './launcher.js';
import { runNode } from './processes.js';
import type { ImportTiming } from './report/format.js';
import { median } from './report/summary.js';
import { CACHE_DIR } from './settings.js';

/**
 * Times `lnswap import SNAPSHOT` into a database that does not exist yet, as an operator moving hosts would,
 * `runs` times: one import takes about a minute, long enough for the machine's speed to drift, so the median
 * is reported as the scenarios' req/s are. A failed run ends the timing.
 */
export async function timeImport(snapshotFile: string, orders: number, runs: number): Promise<ImportTiming> {
  const database = join(CACHE_DIR, 'import-timing.sqlite');
  const removeDatabase = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
  };
  const runSeconds: number[] = [];
  let maxRssMegabytes = 0;
  const timing = () => ({
    orders,
    snapshotMegabytes: Math.round(statSync(snapshotFile).size / 1e6),
    seconds: median(runSeconds),
    runSeconds,
    maxRssMegabytes,
  });
  try {
    for (let run = 0; run < runs; run++) {
      removeDatabase();
      const result = await runNode(lnswapCommand('import', snapshotFile, '--db', `sqlite:${database}`));
      runSeconds.push(result.seconds);
      maxRssMegabytes = Math.max(maxRssMegabytes, result.maxRssMegabytes);
      if (result.exitCode !== 0) {
        const error = `exit ${result.exitCode}: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`;
        return { ...timing(), seconds: result.seconds, error };
      }
    }
    return timing();
  } finally {
    removeDatabase();
  }
}

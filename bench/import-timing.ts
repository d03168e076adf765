import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runNode } from './processes.js';
import type { ImportTiming } from './report/format.js';
import { CACHE_DIR, CLI_ENTRY } from './settings.js';

/** Times `lnswap import SNAPSHOT` into a database that does not exist yet, as an operator moving hosts would. */
export async function timeImport(snapshotFile: string, orders: number): Promise<ImportTiming> {
  const database = join(CACHE_DIR, 'import-timing.sqlite');
  const removeDatabase = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
  };
  removeDatabase();
  try {
    const result = await runNode([CLI_ENTRY, 'import', snapshotFile, '--db', `sqlite:${database}`]);
    const timing = {
      orders,
      snapshotMegabytes: Math.round(statSync(snapshotFile).size / 1e6),
      seconds: result.seconds,
      maxRssMegabytes: result.maxRssMegabytes,
    };
    if (result.exitCode === 0) return timing;
    const error = `exit ${result.exitCode}: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`;
    return { ...timing, error };
  } finally {
    removeDatabase();
  }
}

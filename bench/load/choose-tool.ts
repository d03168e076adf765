import { join } from 'node:path';
import type { CpuPinning } from '../cpu-pinning.js';
import type { LoadToolName } from '../settings.js';
import { createAutocannonTool } from './autocannon.js';
import type { LoadTool } from './load-tool.js';
import { createWrkTool, wrkVersion } from './wrk.js';

/** wrk when installed (the targets were measured with it, and it is steadier on two cores), else autocannon. */
export function chooseLoadTool(workDir: string, pinning: CpuPinning, preferred?: LoadToolName): LoadTool {
  const wrk = wrkVersion();
  if (preferred === 'wrk' && wrk === undefined) {
    throw new Error('BENCH_TOOL=wrk but wrk is not on PATH (apt-get install wrk)');
  }
  if (preferred !== 'autocannon' && wrk !== undefined) return createWrkTool(wrk, join(workDir, 'wrk'), pinning);
  return createAutocannonTool(join(workDir, 'autocannon'), pinning);
}

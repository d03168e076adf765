/**
 * Which cores the servers and the load generator run on. The issue's method pins the server under test to one
 * core; left to the scheduler, a server's helper threads (V8's garbage collector, libuv's pool) spread over the
 * load generator's core too, and the ceiling and lnswap then differ in how much of the second core they borrow,
 * not only in how fast they answer. With `taskset` on PATH and at least two cores, every server runs on the last
 * core and the load generator on the others; `BENCH_PIN=0` leaves both to the scheduler.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface CpuPinning {
  /** The command and arguments that run `command args` on the role's cores. */
  wrap(role: 'server' | 'load', command: string, args: readonly string[]): [string, string[]];
  /** For the report. */
  readonly description: string;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function choosePinning(wanted: boolean): CpuPinning {
  const cores = availableParallelism();
  if (!wanted || cores < 2 || !hasTaskset()) {
    const why = !wanted ? 'BENCH_PIN=0' : cores < 2 ? 'one core' : 'no taskset';
    return { wrap: (_role, command, args) => [command, [...args]], description: `not pinned (${why})` };
  }
  const serverCore = String(cores - 1);
  const loadCores = cores === 2 ? '0' : `0-${cores - 2}`;
  return {
    wrap: (role, command, args) => ['taskset', ['-c', role === 'server' ? serverCore : loadCores, command, ...args]],
    description: `each server pinned to core ${serverCore}, the load generator to core${cores === 2 ? '' : 's'} ${loadCores}`,
  };
}

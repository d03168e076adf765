import { cpus, loadavg, release, totalmem } from 'node:os';

export interface MachineDescription {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGigabytes: number;
  readonly node: string;
  readonly kernel: string;
  readonly loadAverage: string;
}

/** The 1-minute load average. */
export function currentLoad(): number {
  return loadavg()[0] ?? 0;
}

export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGigabytes: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: `Linux ${release()}`,
    loadAverage: currentLoadAverage(),
  };
}

/** 1, 5 and 15 minute load averages: above ~1 on two cores, something else was competing for the CPU. */
export function currentLoadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
}

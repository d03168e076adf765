import { FULL_ORDER_COUNT } from '../settings.js';
import type { MachineDescription } from './machine.js';
import type { ScenarioTargetSummary } from './summary.js';

export interface ImportTiming {
  readonly orders: number;
  readonly snapshotMegabytes: number;
  /** The median of the runs (of a failed run: its own time). */
  readonly seconds: number;
  readonly runSeconds: readonly number[];
  readonly maxRssMegabytes: number;
  /** Set when the import failed: its error output. */
  readonly error?: string;
}

export interface RunDescription {
  readonly smoke: boolean;
  readonly date: string;
  readonly machine: MachineDescription;
  readonly loadAverageAtEnd: string;
  /** 1-minute load average before the bench started any work of its own. */
  readonly loadAtStart: number;
  readonly tool: string;
  readonly orders: number;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly rounds: number;
  /** The lnswap targets measured, e.g. "SQLite and PostgreSQL". */
  readonly stores: string;
  readonly rows: readonly ScenarioTargetSummary[];
  readonly notes: readonly string[];
  readonly importTiming?: ImportTiming;
  readonly profiles: readonly string[];
}

/** `lnswap import` targets: a minute for 1,000,000 orders (issue 14), ten for 10,000,000 (issue 15). */
const IMPORT_TARGET_SECONDS: ReadonlyMap<number, number> = new Map([
  [FULL_ORDER_COUNT, 60],
  [10 * FULL_ORDER_COUNT, 600],
]);
/** Above this 1-minute load average before the bench starts, something else is using the CPU. */
const BUSY_LOAD = 1;

function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en');
}

export function formatTable(rows: readonly ScenarioTargetSummary[]): string {
  const lines = [
    '| scenario | target | body B | req/s (median) | req/s per round | p50 ms | p99 ms | max RSS MB | × ceiling ' +
      '| issue target |',
    '|---|---|---:|---:|---|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const cells = [
      row.scenario,
      row.target,
      row.bodyBytes,
      formatRate(row.medianRequestsPerSecond),
      row.roundsRequestsPerSecond.map(formatRate).join(' / '),
      row.p50Ms.toFixed(2),
      row.p99Ms.toFixed(2),
      row.maxRssMegabytes,
      row.ratioToCeiling.toFixed(2),
      row.verdict ?? '',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function formatImport(timing: ImportTiming): string {
  const snapshot = `${timing.orders.toLocaleString('en')}-order snapshot (${timing.snapshotMegabytes} MB)`;
  const what = `\`lnswap import\` of the ${snapshot} into a fresh SQLite database`;
  if (timing.error !== undefined) return `${what}: FAILED after ${timing.seconds.toFixed(1)} s: ${timing.error}`;
  const runs = timing.runSeconds.map((seconds) => seconds.toFixed(1)).join(', ');
  const median = timing.runSeconds.length > 1 ? `median of ${timing.runSeconds.length} runs (${runs} s), ` : '';
  const targetSeconds = IMPORT_TARGET_SECONDS.get(timing.orders);
  const target =
    targetSeconds === undefined
      ? `no target for ${timing.orders.toLocaleString('en')} orders`
      : `target ≤ ${targetSeconds} s: ${timing.seconds <= targetSeconds ? 'met' : 'MISSED'}`;
  return `${what}: **${timing.seconds.toFixed(1)} s**, ${median}max RSS ${timing.maxRssMegabytes} MB (${target}).`;
}

export function formatRun(run: RunDescription): string {
  const { machine } = run;
  const lines: string[] = [];
  if (run.loadAtStart > BUSY_LOAD) {
    lines.push(
      `> **Busy machine:** the 1-minute load average was ${run.loadAtStart.toFixed(2)} before the bench started ` +
        `(above ${BUSY_LOAD} on ${machine.cores} cores): other work competed for the CPU; the numbers are indicative.`,
      '',
    );
  }
  if (run.smoke) {
    lines.push(
      '> **SMOKE RUN, not representative:** fewer orders, rounds, seconds or scenarios than the issue asks for.',
      '> Rerun `npm run bench` with the defaults on an idle machine for real numbers.',
      '',
    );
  }
  lines.push(
    `- Date: ${run.date}`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGigabytes} GiB memory, ${machine.kernel}`,
    `- Node ${machine.node}; load average (1/5/15 min) ${machine.loadAverage} at the start, ` +
      `${run.loadAverageAtEnd} at the end`,
    `- Load: ${run.tool}, ${run.connections} connections, ${run.warmupSeconds} s warm-up + ${run.seconds} s ` +
      `measured per round, ${run.rounds} rounds interleaved (ceiling, ${run.stores})`,
    `- Dataset: ${run.orders.toLocaleString('en')} orders`,
    '',
    formatTable(run.rows),
  );
  if (run.importTiming) lines.push('', formatImport(run.importTiming));
  if (run.notes.length > 0) lines.push('', ...run.notes.map((note) => `- ${note}`));
  for (const profile of run.profiles) lines.push('', profile);
  return lines.join('\n');
}

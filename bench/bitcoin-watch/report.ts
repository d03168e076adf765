import type { GeneratedSection } from '../report/benchmarks-file.js';
import type { MachineDescription } from '../report/machine.js';
import { percentile } from '../socket-load/statistics.js';
import type { BitcoinWatchMeasurement, WatchResult } from './measure.js';
import {
  FUNDING_EVERY,
  TARGET_LATENCY_MS,
  TARGET_ORDERS,
  TARGET_REQUESTS_PER_SECOND,
  TRANSACTIONS_PER_SECOND,
  type BitcoinWatchSettings,
} from './settings.js';

export const BITCOIN_WATCH_RUN: GeneratedSection = {
  start: '<!-- bitcoin-watch:start (written by `npm run bench`) -->',
  end: '<!-- bitcoin-watch:end -->',
  heading: 'Bitcoin watcher: latest run',
};

export interface BitcoinWatchRun {
  readonly date: string;
  readonly machine: MachineDescription;
  readonly loadAverageAtEnd: string;
  readonly settings: BitcoinWatchSettings;
  readonly smoke: boolean;
  readonly measurement: BitcoinWatchMeasurement;
}

const count = (value: number) => Math.round(value).toLocaleString('en');
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The verdict on one service's figures; empty where it sets no target. */
export function verdictOf(result: WatchResult, fundings: number): string {
  if (result.orders !== TARGET_ORDERS) return '';
  const misses: string[] = [];
  if (result.averagePerSecond > TARGET_REQUESTS_PER_SECOND) misses.push(`> ${TARGET_REQUESTS_PER_SECOND} req/s`);
  const unheard = fundings - result.latenciesMs.length;
  if (unheard > 0) misses.push(`${unheard} fundings unheard before the block`);
  else if (percentile(result.latenciesMs, 100) >= TARGET_LATENCY_MS) misses.push(`max ≥ ${TARGET_LATENCY_MS / 1000} s`);
  return misses.length === 0 ? 'met' : `MISSED: ${misses.join(', ')}`;
}

function latencyCell(result: WatchResult, fundings: number): string {
  const heard = `${result.latenciesMs.length} of ${fundings}`;
  if (result.latenciesMs.length === 0) return `none of ${fundings} before the block`;
  const p50 = seconds(percentile(result.latenciesMs, 50));
  return `${p50} / **${seconds(percentile(result.latenciesMs, 100))}** (${heard})`;
}

export function formatBitcoinWatchRun(run: BitcoinWatchRun): string {
  const { machine, settings, measurement } = run;
  const rows = measurement.results.map((result) =>
    [
      count(result.orders),
      `${count(result.requestsPerBlock)} (${count(result.blockPassRequests)} - ${count(result.quietPassRequests)})`,
      count(result.requestsPerMinute),
      `**${result.averagePerSecond.toFixed(1)}**`,
      count(result.busiestSecond),
      latencyCell(result, measurement.fundings),
      verdictOf(result, measurement.fundings),
    ].join(' | '),
  );
  const otherStates = measurement.results.flatMap((result) =>
    result.otherStates.length === 0
      ? []
      : [
          `- ${count(result.orders)} orders: first events in another state than expected: ${result.otherStates.join(', ')}`,
        ],
  );
  return [
    ...(run.smoke
      ? ['> **SMOKE RUN, not representative:** fewer orders or seconds of traffic than the issue asks for.', '']
      : []),
    `Run of ${run.date} on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ` +
      `${machine.loadAverage} at the start, ${run.loadAverageAtEnd} at the end (1 / 5 / 15 min). Backend: ` +
      `${settings.backend === 'esplora' ? 'Esplora' : 'Bitcoin Core RPC'}; ${settings.trafficSeconds} s of traffic at ` +
      `${TRANSACTIONS_PER_SECOND} tx/s (one in ${FUNDING_EVERY} funding an order: ${measurement.fundings} fundings); ` +
      `a block of ${count(measurement.blockTransactions)} transactions.`,
    '',
    '| live orders | requests per block (pass with it - pass without) | requests per minute of traffic | average req/s | ' +
      'busiest second | mempool → `stateChanged`, s: p50 / max (heard) | target |',
    '|---:|---|---:|---:|---:|---|---|',
    ...rows.map((row) => `| ${row} |`),
    ...(otherStates.length === 0 ? [] : ['', ...otherStates]),
  ].join('\n');
}

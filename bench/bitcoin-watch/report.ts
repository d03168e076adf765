import {
  DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS,
  DEFAULT_BITCOIN_POLL_INTERVAL_MS,
} from '../../src/engine/chain-following/bitcoin-watch.js';
import type { GeneratedSection } from '../report/benchmarks-file.js';
import type { MachineDescription } from '../report/machine.js';
import { percentile } from '../socket-load/statistics.js';
import type { BitcoinWatchMeasurement, WatchResult } from './measure.js';
import { FUNDING_EVERY, TRANSACTIONS_PER_SECOND, type BitcoinWatchSettings } from './settings.js';
import { verdictOf } from './verdict.js';

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

function latencyText(result: WatchResult, fundings: number): string {
  if (result.latenciesMs.length === 0) return `no funding of ${fundings} heard before the block`;
  const p50 = seconds(percentile(result.latenciesMs, 50));
  const max = seconds(percentile(result.latenciesMs, 100));
  return `mempool → \`stateChanged\` p50 ${p50} s, max **${max} s** (${result.latenciesMs.length} of ${fundings} heard)`;
}

function resultLine(result: WatchResult, fundings: number): string {
  const verdict = verdictOf(result, fundings);
  return (
    `- ${count(result.orders)} live orders: **${count(result.requestsPerBlock)}** requests per block ` +
    `(${count(result.blockPassRequests)} - ${count(result.quietPassRequests)}), ` +
    `**${count(result.requestsPerMinute)}** per minute of traffic, **${result.averagePerSecond.toFixed(1)} req/s** on ` +
    `average, busiest second ${count(result.busiestSecond)}; ${latencyText(result, fundings)}` +
    (verdict === '' ? '' : `; target: ${verdict}`) +
    (result.otherStates.length === 0 ? '' : `; first events in another state: ${result.otherStates.join(', ')}`)
  );
}

export function formatBitcoinWatchRun(run: BitcoinWatchRun): string {
  const { machine, settings, measurement } = run;
  // One line either way: the section's place in BENCHMARKS.md stays as long as a full run's.
  const smoke = run.smoke ? '**SMOKE RUN, not representative** (fewer orders or seconds of traffic than asked). ' : '';
  return [
    `${smoke}Run of ${run.date} on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ` +
      `${machine.loadAverage} at the start, ${run.loadAverageAtEnd} at the end (1 / 5 / 15 min). \`lnswap serve\` on ` +
      `SQLite, default poll (${DEFAULT_BITCOIN_POLL_INTERVAL_MS / 1000} s), mempool passes ` +
      `(${DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS / 1000} s) and confirmations, following ` +
      `${settings.backend === 'esplora' ? 'Esplora' : 'Bitcoin Core RPC'}; ${settings.trafficSeconds} s of traffic at ` +
      `${TRANSACTIONS_PER_SECOND} tx/s, one in ${FUNDING_EVERY} funding an order whose wallet listens on ` +
      `\`/user/v1\` (${measurement.fundings} fundings); then a block of ten minutes of such traffic ` +
      `(${count(measurement.blockTransactions)} transactions, those beyond the measured traffic mined straight in).`,
    ...measurement.results.map((result) => resultLine(result, measurement.fundings)),
  ].join('\n');
}

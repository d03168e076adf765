import type { GeneratedSection } from '../report/benchmarks-file.js';
import type { MachineDescription } from '../report/machine.js';
import type { SocketLoadSettings } from './settings.js';
import type { StoreLoadResult } from './socket-load.js';

export const SOCKET_LOAD_RUN: GeneratedSection = {
  start: '<!-- socket-load:start (written by `npm run bench:sockets`) -->',
  end: '<!-- socket-load:end -->',
  heading: 'Socket load: latest run',
};
const STORE_TITLE = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const count = (value: number) => Math.round(value).toLocaleString('en-US');

function refusalText(refusals: Readonly<Record<string, number>>): string {
  const entries = Object.entries(refusals);
  return entries.length === 0 ? 'none' : entries.map(([token, times]) => `${times} ${token}`).join(', ');
}

export interface SocketLoadRun {
  readonly date: string;
  readonly machine: MachineDescription;
  readonly settings: SocketLoadSettings;
  readonly results: readonly StoreLoadResult[];
}

export function formatSocketLoadRun(run: SocketLoadRun): string {
  const { settings, machine } = run;
  const subscriberRows = run.results.map(({ store, rssStartedMegabytes, subscribers: s }) =>
    [
      STORE_TITLE[store],
      count(s.subscribers),
      `${count(s.movesPerSecond)} (${count(s.moves)} in ${s.seconds} s; ${count(s.skippedMoves)} skipped, ${count(s.failedMoves)} failed)`,
      `${count(s.eventsReceived)} / ${count(s.eventsMissing)}`,
      `${ms(s.latencyP50Ms)} / **${ms(s.latencyP99Ms)}** / ${ms(s.latencyMaxMs)}`,
      `${rssStartedMegabytes} / ${s.rssBeforeMegabytes} / ${s.rssSubscribedMegabytes} / **${s.rssMaxMegabytes}**`,
      ms(s.loadProcessDelayP99Ms),
      s.loadAverage,
    ].join(' | '),
  );
  const quoteRows = run.results.flatMap(({ store, quotes }) => {
    const best = Math.max(...quotes.map((q) => q.auctionsPerSecond));
    return quotes.map((q) =>
      [
        STORE_TITLE[store],
        String(q.users),
        q.auctionsPerSecond === best
          ? `**${q.auctionsPerSecond.toFixed(0)}** (${count(q.auctions)} in ${q.seconds} s)`
          : `${q.auctionsPerSecond.toFixed(0)} (${count(q.auctions)} in ${q.seconds} s)`,
        `${ms(q.ackP50Ms)} / ${ms(q.ackP99Ms)}`,
        refusalText(q.refusals),
        String(q.rssMaxMegabytes),
        q.loadAverage,
      ].join(' | '),
    );
  });
  return [
    `Run of ${run.date} on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGigabytes} GB, Node ${machine.node}; ` +
      `load average at the start ${machine.loadAverage} (1 / 5 / 15 min).`,
    '',
    `**Subscribers**: ${count(settings.subscribers)} \`/user/v1\` connections in ${settings.subscriberProcesses} load ` +
      `process(es), each subscribed to its own order; every order moved once a second for ${settings.moveSeconds} s.`,
    '',
    '| store | subscribers | moves/s | events received / missing | latency p50 / p99 / max (ms) | server RSS started / before / subscribed / max (MB) | load process delay p99 (ms) | load average after |',
    '|---|---|---|---|---|---|---|---|',
    ...subscriberRows.map((row) => `| ${row} |`),
    '',
    `**Quotes**: 3 provider bots; ${settings.quoteUsers.join(', ')} users in turn, each sending \`requestQuote\` as soon ` +
      `as its previous ack came back; quote deadline ${settings.quoteDeadlineMs} ms; ${settings.quoteSeconds} s measured ` +
      'per round after 3 s unmeasured. In bold, the most auctions completed per second.',
    '',
    '| store | users | completed auctions/s | ack p50 / p99 (ms) | refusals | server RSS max (MB) | load average after |',
    '|---|---|---|---|---|---|---|',
    ...quoteRows.map((row) => `| ${row} |`),
  ].join('\n');
}

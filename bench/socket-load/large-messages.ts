/**
 * The large-message flood: 200 connections from 200 loopback addresses send ~2 MiB `broadcastTransaction`
 * messages as fast as they are answered (bench/socket-load/flooder.ts) while a bystander from 127.0.0.1 keeps one
 * HTTP request and one socket.io request in flight; its latencies are what the instance promises everyone while
 * being flooded. The instance runs with the default byte budgets on SQLite. `npm run bench:flood`.
 * Variables: BENCH_FLOOD_CONNECTIONS (200), BENCH_FLOOD_SECONDS (20).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeGeneratedSection, type GeneratedSection } from '../report/benchmarks-file.js';
import { currentLoadAverage, describeMachine } from '../report/machine.js';
import { BENCHMARKS_FILE, CACHE_DIR } from '../settings.js';
import { connectBystander, summarize, type BystanderSummary } from './bystander.js';
import type { FloodMessage, StartFlooding } from './flood-messages.js';
import type { InstanceReady } from './messages.js';
import { forkEntry, nextMessage, stopChild } from './processes.js';

export const LARGE_MESSAGE_RUN: GeneratedSection = {
  start: '<!-- socket-flood:start (written by `npm run bench:flood`) -->',
  end: '<!-- socket-flood:end -->',
  heading: 'Large-message flood: latest run',
};

/** Just under the 2 MiB message bound, so engine.io's own size check cuts none of them. */
const MESSAGE_BYTES = 2 * 1024 * 1024 - 1024;
const IN_FLIGHT = 2;
const MAX_CONNECTIONS = 1_000;
const MAX_SECONDS = 120;

function log(message: string): void {
  process.stderr.write(`[bench:flood] ${message}\n`);
}

function bounded(name: string, fallback: number, max: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new Error(`${name} must be a whole number 1..${max}, got ${text}`);
  return value;
}

const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const row = (what: string, s: BystanderSummary) =>
  `| ${what} | ${s.answers.toLocaleString('en-US')} | ${ms(s.p50Ms)} / **${ms(s.p99Ms)}** / ${ms(s.maxMs)} |`;

export async function runLargeMessageFlood(): Promise<string> {
  const connections = bounded('BENCH_FLOOD_CONNECTIONS', 200, MAX_CONNECTIONS);
  const seconds = bounded('BENCH_FLOOD_SECONDS', 20, MAX_SECONDS);
  const machine = describeMachine();
  const date = new Date().toISOString();
  const directory = join(CACHE_DIR, 'socket-flood');
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const instance = forkEntry('instance', [`sqlite:${join(directory, 'lnswap.sqlite')}`, '100']);
  try {
    const { url } = await nextMessage<InstanceReady>(instance, 'ready');
    const flooder = forkEntry('flooder', [
      url,
      String(connections),
      String(MESSAGE_BYTES),
      String(IN_FLIGHT),
      String(seconds),
    ]);
    try {
      const connected = await nextMessage<Extract<FloodMessage, { type: 'connected' }>>(flooder, 'connected');
      log(`${connected.connections} flooding connections open; flooding for ${seconds} s`);
      const bystander = await connectBystander(url);
      const flooded = nextMessage<Extract<FloodMessage, { type: 'flooded' }>>(flooder, 'flooded');
      flooder.send({ type: 'start' } satisfies StartFlooding);
      const seen = await bystander.watch(flooded);
      const outcome = await flooded;
      const answers = Object.entries(outcome.answers).map(
        ([token, times]) => `${times.toLocaleString('en-US')} ${token}`,
      );
      return [
        `Run of ${date} on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${machine.loadAverage} at the start, ${currentLoadAverage()} at the end (1 / 5 / 15 min).`,
        '',
        `**Flood**: ${connected.connections} \`/user/v1\` connections from as many loopback addresses, each sending \`broadcastTransaction\` messages of ${connected.messageBytes.toLocaleString('en-US')} bytes with ${IN_FLIGHT} unanswered at a time, for ${seconds} s; default byte budgets. ${outcome.sent.toLocaleString('en-US')} messages sent; answered: ${answers.length === 0 ? 'none' : answers.join(', ')}; ${outcome.unanswered.toLocaleString('en-US')} waiting in their senders' TCP buffers at the end; ${outcome.closed} connections closed.`,
        '',
        '| bystander (127.0.0.1), one request at a time | answers | latency p50 / p99 / max (ms) |',
        '|---|---|---|',
        row('`GET /api/markets`', summarize(seen.http)),
        row('`requestMarketRequirements` ack (socket.io ping)', summarize(seen.acks)),
      ].join('\n');
    } finally {
      await stopChild(flooder);
    }
  } finally {
    await stopChild(instance);
    rmSync(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runLargeMessageFlood()
    .then((report) => {
      process.stdout.write(`\n${report}\n`);
      writeGeneratedSection(BENCHMARKS_FILE, LARGE_MESSAGE_RUN, report);
      log(`wrote the flood run into ${BENCHMARKS_FILE}`);
    })
    .catch((error: unknown) => {
      log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    });
}

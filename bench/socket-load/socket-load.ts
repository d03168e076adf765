import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { RssSampler } from '../rss-sampler.js';
import { currentLoadAverage } from '../report/machine.js';
import type { InstanceReady, MovesDone, MovingOrder, SubscriberMessage } from './messages.js';
import { forkEntry, nextMessage, stopChild } from './processes.js';
import { QuoteUsers, startProviders, type QuoteLoadResult } from './quote-load.js';
import type { SocketLoadSettings, StoreKind } from './settings.js';
import { percentile } from './statistics.js';

const SCHEMA = 'lnswap_socket_load';
/** After the last move, how long the subscribers get to receive its event before they are asked what came. */
const SETTLE_MS = 3_000;

export interface SubscriberLoadResult {
  readonly subscribers: number;
  readonly subscriberProcesses: number;
  readonly seconds: number;
  readonly movesPerSecond: number;
  readonly moves: number;
  /** Moves due while the order's previous move was still committing. */
  readonly skippedMoves: number;
  readonly failedMoves: number;
  readonly eventsReceived: number;
  /** Committed moves whose event never arrived. */
  readonly eventsMissing: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** After the quote load, before the subscribers connect. */
  readonly rssBeforeMegabytes: number;
  readonly rssSubscribedMegabytes: number;
  readonly rssMaxMegabytes: number;
  readonly loadProcessDelayP99Ms: number;
  readonly disconnects: number;
  readonly loadAverage: string;
}

export interface QuoteRound extends QuoteLoadResult {
  readonly rssMaxMegabytes: number;
  readonly loadAverage: string;
}

export interface StoreLoadResult {
  readonly store: StoreKind;
  /** One round per count of users. */
  readonly quotes: readonly QuoteRound[];
  /** Just started, before any load. */
  readonly rssStartedMegabytes: number;
  readonly subscribers: SubscriberLoadResult;
}

function residentMegabytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match?.[1] ?? 0) / 1024);
}

async function withPostgres<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database for one store kind: the instance migrates it and writes its configuration. */
async function freshDatabase(kind: StoreKind, settings: SocketLoadSettings): Promise<string> {
  if (kind === 'sqlite') {
    mkdirSync(settings.directory, { recursive: true });
    const file = join(settings.directory, 'lnswap.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    return `sqlite:${file}`;
  }
  await withPostgres(settings.postgresUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`));
  return `${settings.postgresUrl}${settings.postgresUrl.includes('?') ? '&' : '?'}schema=${SCHEMA}`;
}

async function dropDatabase(kind: StoreKind, settings: SocketLoadSettings): Promise<void> {
  if (kind === 'sqlite') rmSync(settings.directory, { recursive: true, force: true });
  else await withPostgres(settings.postgresUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`));
}

function commitTimes(flat: readonly (string | number)[]): Map<string, number> {
  const times = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 3)
    times.set(`${flat[i] as string}:${flat[i + 1] as number}`, flat[i + 2] as number);
  return times;
}

async function followOrders(
  instance: ChildProcess,
  url: string,
  orders: readonly MovingOrder[],
  settings: SocketLoadSettings,
  log: (message: string) => void,
): Promise<SubscriberLoadResult> {
  const rssBeforeMegabytes = residentMegabytes(instance.pid!);
  const share = Math.ceil(orders.length / settings.subscriberProcesses);
  const loaders = Array.from({ length: settings.subscriberProcesses }, (_, index) =>
    forkEntry('subscribers', [url, String(index * share)]),
  );
  try {
    const subscribed = loaders.map((child) =>
      nextMessage<Extract<SubscriberMessage, { type: 'subscribed' }>>(child, 'subscribed'),
    );
    loaders.forEach((child, index) =>
      child.send(orders.slice(index * share, (index + 1) * share).map((order) => order.orderId)),
    );
    const ready = await Promise.all(subscribed);
    const refusals = ready.flatMap((message) => message.refusals);
    if (refusals.length > 0) throw new Error(`subscribeToOrderState refused: ${refusals.slice(0, 5).join(', ')}`);
    log(`${orders.length} subscribers connected and subscribed in ${loaders.length} load process(es)`);
    const rssSubscribedMegabytes = residentMegabytes(instance.pid!);

    const rss = new RssSampler(instance.pid!);
    const moved = nextMessage<MovesDone>(instance, 'moved');
    instance.send({ type: 'move', orders, seconds: settings.moveSeconds });
    const done = await moved;
    await sleep(SETTLE_MS);
    const rssMaxMegabytes = rss.stop();
    const loadAverage = currentLoadAverage();
    const received = loaders.map((child) =>
      nextMessage<Extract<SubscriberMessage, { type: 'received' }>>(child, 'received'),
    );
    for (const child of loaders) child.send('report');
    const reports = await Promise.all(received);

    const commits = commitTimes(done.commits);
    const latencies: number[] = [];
    const seen = new Set<string>();
    for (const report of reports) {
      const flat = report.receipts;
      for (let i = 0; i < flat.length; i += 3) {
        const key = `${flat[i] as string}:${flat[i + 1] as number}`;
        const committed = commits.get(key);
        if (committed === undefined || seen.has(key)) continue;
        seen.add(key);
        latencies.push((flat[i + 2] as number) - committed);
      }
    }
    return {
      subscribers: orders.length,
      subscriberProcesses: loaders.length,
      seconds: settings.moveSeconds,
      moves: done.applied,
      movesPerSecond: done.applied / settings.moveSeconds,
      skippedMoves: done.skipped,
      failedMoves: done.refused,
      eventsReceived: latencies.length,
      eventsMissing: commits.size - seen.size,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
      latencyMaxMs: percentile(latencies, 100),
      rssBeforeMegabytes,
      rssSubscribedMegabytes,
      rssMaxMegabytes,
      loadProcessDelayP99Ms: Math.max(...reports.map((report) => report.eventLoopDelayP99Ms)),
      disconnects: reports.reduce((sum, report) => sum + report.disconnects, 0),
      loadAverage,
    };
  } finally {
    await Promise.all(loaders.map((child) => stopChild(child)));
  }
}

/** Quotes, then subscribers, on one instance of one store kind. */
export async function loadOneStore(
  kind: StoreKind,
  settings: SocketLoadSettings,
  log: (message: string) => void,
): Promise<StoreLoadResult> {
  const databaseUrl = await freshDatabase(kind, settings);
  const instance = forkEntry('instance', [databaseUrl, String(settings.quoteDeadlineMs)]);
  instance.on('error', (error) => log(`instance: ${error.message}`));
  try {
    const ready = await nextMessage<InstanceReady>(instance, 'ready');
    log(`${kind}: instance serving at ${ready.url}`);
    const rssStartedMegabytes = residentMegabytes(instance.pid!);
    const providers = await startProviders(ready.url, ready.providers);
    const users = await QuoteUsers.connect(ready.url, Math.max(...settings.quoteUsers));
    try {
      // A few seconds unmeasured first: connections warm, code optimized, pools filled.
      await users.measure(3, users.connected);
      const quotes: QuoteRound[] = [];
      for (const count of settings.quoteUsers) {
        const rss = new RssSampler(instance.pid!);
        const round = await users.measure(settings.quoteSeconds, count);
        quotes.push({ ...round, rssMaxMegabytes: rss.stop(), loadAverage: currentLoadAverage() });
        log(
          `${kind}: ${round.auctionsPerSecond.toFixed(0)} auctions/s with ${count} users, ` +
            `ack p50 ${round.ackP50Ms.toFixed(0)} ms, p99 ${round.ackP99Ms.toFixed(0)} ms`,
        );
      }
      // With as many users as completed the most auctions: more only make each one late.
      const best = quotes.reduce((top, round) => (round.auctionsPerSecond > top.auctionsPerSecond ? round : top));
      await users.fillTo(settings.subscribers, best.users);
      log(`${kind}: ${users.orders.length} orders made by auctions; following ${settings.subscribers} of them`);
      users.close();
      for (const bot of providers) bot.close();
      const subscribers = await followOrders(
        instance,
        ready.url,
        users.orders.slice(0, settings.subscribers),
        settings,
        log,
      );
      log(
        `${kind}: ${subscribers.movesPerSecond.toFixed(0)} moves/s, event latency p50 ${subscribers.latencyP50Ms.toFixed(1)} ms, ` +
          `p99 ${subscribers.latencyP99Ms.toFixed(1)} ms, ${subscribers.eventsMissing} missing, server RSS max ${subscribers.rssMaxMegabytes} MB`,
      );
      return { store: kind, rssStartedMegabytes, quotes, subscribers };
    } finally {
      users.close();
      for (const bot of providers) bot.close();
    }
  } finally {
    await stopChild(instance);
    await dropDatabase(kind, settings);
  }
}

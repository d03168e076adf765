import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../scripts/ensure-built.js';
import { runBitcoinWatch } from './bitcoin-watch/run.js';
import { BITCOIN_WATCH_SCENARIO } from './bitcoin-watch/settings.js';
import { choosePinning, type CpuPinning } from './cpu-pinning.js';
import { COLD_SAMPLE_SIZE } from './dataset/cold-sample.js';
import { prepareDatasets, type Datasets } from './dataset/datasets.js';
import { upgradeSchema } from './dataset/schema-upgrade.js';
import { timeImport } from './import-timing.js';
import { lnswapCommand } from './launcher.js';
import { chooseLoadTool } from './load/choose-tool.js';
import type { LoadTool } from './load/load-tool.js';
import { measureRound, type RoundResult } from './measure.js';
import { warmDataset } from './page-cache.js';
import { freePort, startServer, type RunningServer } from './processes.js';
import { profileServer } from './profile/profile-server.js';
import { LATEST_RUN, writeGeneratedSection } from './report/benchmarks-file.js';
import { formatRun, formatTable, type ImportTiming } from './report/format.js';
import { currentLoad, currentLoadAverage, describeMachine } from './report/machine.js';
import { CEILING, summarize, type ScenarioTargetSummary, type TargetName } from './report/summary.js';
import { buildScenarios, COLD_VERIFIED_PATHS, RANDOM_HOT_SET_SIZE, type Scenario } from './scenarios.js';
import { runSocketLoad } from './socket-load/run.js';
import { socketLoadWanted } from './socket-load/settings.js';
import {
  BENCHMARKS_FILE,
  CACHE_DIR,
  PROJECT_ROOT,
  isSmokeRun,
  readSettings,
  type BenchSettings,
  type StoreName,
} from './settings.js';
import { verifyResponses } from './verify-responses.js';

const BARE_SERVER = join(PROJECT_ROOT, 'bench', 'targets', 'bare-server.mjs');
const LOG_DIR = join(CACHE_DIR, 'logs');

/** A running lnswap server and the dataset it serves. */
interface LnswapTarget {
  readonly server: RunningServer;
  readonly databaseUrl: string;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function serveArgs(databaseUrl: string): string[] {
  return lnswapCommand('serve', '--db', databaseUrl, '--host', '127.0.0.1');
}

async function startLnswap(name: TargetName, databaseUrl: string, pinning: CpuPinning): Promise<RunningServer> {
  const port = await freePort();
  return startServer({
    pinning,
    name,
    args: [...serveArgs(databaseUrl), '--port', String(port)],
    port,
    logFile: join(LOG_DIR, `${name.replace(/\W+/g, '-')}.log`),
    readyPath: '/api/markets',
  });
}

async function startCeiling(bodyBytes: number, pinning: CpuPinning): Promise<RunningServer> {
  const port = await freePort();
  return startServer({
    pinning,
    name: CEILING,
    args: [BARE_SERVER, '--port', String(port), '--bytes', String(bodyBytes)],
    port,
    logFile: join(LOG_DIR, 'node-http.log'),
    readyPath: '/',
  });
}

function selectScenarios(all: Scenario[], wanted: readonly string[] | undefined): Scenario[] {
  if (wanted === undefined) return all;
  const unknown = wanted.filter((name) => !all.some((scenario) => scenario.name === name));
  if (unknown.length > 0) {
    const known = [...all.map((scenario) => scenario.name), BITCOIN_WATCH_SCENARIO].join(', ');
    throw new Error(`BENCH_SCENARIOS names unknown scenarios: ${unknown.join(', ')} (known: ${known})`);
  }
  return all.filter((scenario) => wanted.includes(scenario.name));
}

/** A B C, A B C, ...: drift on a shared machine (other jobs, thermal, caches) spreads evenly over the targets. */
async function measureScenario(
  scenario: Scenario,
  lnswap: readonly LnswapTarget[],
  tool: LoadTool,
  settings: BenchSettings,
  notes: string[],
  pinning: CpuPinning,
): Promise<ScenarioTargetSummary[]> {
  const check = await verifyResponses(
    scenario,
    lnswap.map(({ server }) => server),
  );
  if (check.differingBodies > 0) {
    const differing = `${check.differingBodies} of ${scenario.verifiedPaths.length}`;
    notes.push(`${scenario.name}: ${differing} responses differ between SQLite and PostgreSQL.`);
  }
  const ceiling = await startCeiling(check.meanBodyBytes, pinning);
  const rounds = new Map<TargetName, RoundResult[]>();
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      for (const { server, databaseUrl } of [{ server: ceiling, databaseUrl: undefined }, ...lnswap]) {
        if (databaseUrl !== undefined) await warmDataset(databaseUrl);
        const result = await measureRound(tool, server, scenario.paths, settings);
        const name = server.name as TargetName;
        rounds.set(name, [...(rounds.get(name) ?? []), result]);
        const { load } = result;
        log(
          `${scenario.name} round ${round}/${settings.rounds} ${name}: ${Math.round(load.requestsPerSecond)} req/s, ` +
            `p99 ${load.p99Ms.toFixed(2)} ms, RSS ${result.maxRssMegabytes} MB` +
            (load.failures > 0 ? `, ${load.failures} FAILED` : ''),
        );
      }
    }
  } finally {
    await ceiling.stop();
  }
  return summarize(scenario.name, check.meanBodyBytes, rounds);
}

const STORE_TARGETS: Readonly<Record<StoreName, { title: string; target: TargetName }>> = {
  sqlite: { title: 'SQLite', target: 'lnswap SQLite' },
  postgres: { title: 'PostgreSQL', target: 'lnswap PostgreSQL' },
};

/** The lnswap targets of the run, each with its dataset's URL. */
function storeTargets(settings: BenchSettings, datasets: Datasets): { store: string; name: TargetName; url: string }[] {
  return settings.stores.map((store) => {
    const url = store === 'sqlite' ? datasets.sqliteUrl : datasets.postgresUrl;
    if (url === undefined) throw new Error(`no ${store} dataset was prepared`);
    return { store: STORE_TARGETS[store].title, name: STORE_TARGETS[store].target, url };
  });
}

async function profileKeyScenarios(
  scenarios: readonly Scenario[],
  targets: readonly { store: string; url: string }[],
  tool: LoadTool,
  settings: BenchSettings,
): Promise<string[]> {
  const profiles: string[] = [];
  const profiled = ['order-by-id', 'orders-by-invoice-hash', 'cold-order-by-id', 'cold-orders-by-invoice-hash'];
  for (const scenario of scenarios.filter((s) => profiled.includes(s.name))) {
    for (const { store, url } of targets) {
      log(`profiling lnswap ${store} under ${scenario.name}`);
      const target = { title: `lnswap ${store}, ${scenario.name}`, serveArgs: serveArgs(url), paths: scenario.paths };
      profiles.push(await profileServer(target, tool, settings, CACHE_DIR));
    }
  }
  return profiles;
}

/** How the hot and cold sets were drawn and how much of them was checked, for the report. */
function scenarioMethod(scenarios: readonly Scenario[]): string[] {
  const names = new Set(scenarios.map((scenario) => scenario.name));
  const method: string[] = [];
  if ([...names].some((name) => name.startsWith('random-'))) {
    method.push(
      `random-${RANDOM_HOT_SET_SIZE}-*: ${RANDOM_HOT_SET_SIZE.toLocaleString('en')} orders (or invoices) drawn at random ` +
        'from the whole store (the head of the cold sample), every response checked before measuring.',
    );
  }
  if ([...names].some((name) => name.startsWith('cold-'))) {
    method.push(
      `cold-*: load spread uniformly over ${COLD_SAMPLE_SIZE.toLocaleString('en')} orders (by id) or invoices (by ` +
        'hash) drawn with a seeded reservoir over the whole store, far more than the response cache holds; wrk ' +
        'walks the shuffled list from a random offset. Responses (200, same body from both stores) were checked on ' +
        `the first ${COLD_VERIFIED_PATHS.toLocaleString('en')} paths of each cold list, not on all of them.`,
    );
  }
  return method;
}

/** The read benchmark over the dataset: every HTTP scenario, or those of `wanted`. */
async function runReadBenchmark(settings: BenchSettings, wanted: readonly string[] | undefined): Promise<void> {
  const machine = describeMachine();
  const loadAtStart = currentLoad();
  const date = new Date().toISOString();
  mkdirSync(LOG_DIR, { recursive: true });
  ensureBuilt(log);
  const datasets = await prepareDatasets(
    settings.orders,
    settings.stores.includes('postgres') ? settings.postgresUrl : undefined,
  );
  const targets = storeTargets(settings, datasets);
  const notes: string[] = [];
  for (const { store, url } of targets) {
    const upgraded = await upgradeSchema(`${store} dataset`, url);
    if (upgraded !== undefined) {
      log(upgraded);
      notes.push(upgraded);
    }
  }
  const pinning = choosePinning(settings.pin);
  const tool = chooseLoadTool(CACHE_DIR, pinning, settings.tool);
  const scenarios = selectScenarios(buildScenarios(datasets.sample, datasets.coldSample), wanted);
  log(`measuring with ${tool.name} ${tool.version}; server logs in ${LOG_DIR}`);

  const rows: ScenarioTargetSummary[] = [];
  notes.push(
    `CPU: ${pinning.description}. Page cache: each lnswap dataset read into the operating system's page cache ` +
      'before each of its rounds (`bench/page-cache.ts`: this host pages out files idle for a minute).',
  );
  const lnswap: LnswapTarget[] = [];
  try {
    for (const { name, url } of targets) {
      lnswap.push({ server: await startLnswap(name, url, pinning), databaseUrl: url });
    }
    for (const scenario of scenarios) {
      rows.push(...(await measureScenario(scenario, lnswap, tool, settings, notes, pinning)));
    }
  } finally {
    await Promise.all(lnswap.map(({ server }) => server.stop()));
  }
  process.stdout.write(`${formatTable(rows)}\n`);

  let importTiming: ImportTiming | undefined;
  if (settings.timeImport) {
    log(`timing \`lnswap import\` of the snapshot into a fresh SQLite database, ${settings.rounds} times`);
    importTiming = await timeImport(datasets.snapshotFile, settings.orders, settings.rounds);
  }
  const profiles = settings.profile ? await profileKeyScenarios(scenarios, targets, tool, settings) : [];

  const report = formatRun({
    smoke: isSmokeRun(settings),
    date,
    machine,
    loadAverageAtEnd: currentLoadAverage(),
    loadAtStart,
    tool: `${tool.name} ${tool.version}`,
    orders: settings.orders,
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
    rounds: settings.rounds,
    stores: targets.map(({ store }) => store).join(', '),
    rows,
    notes: [...scenarioMethod(scenarios), ...notes],
    ...(importTiming === undefined ? {} : { importTiming }),
    profiles,
  });
  process.stdout.write(`\n${report}\n`);
  writeGeneratedSection(BENCHMARKS_FILE, LATEST_RUN, report);
  log(`wrote the latest run into ${BENCHMARKS_FILE}`);
}

/**
 * The read benchmark, then the Bitcoin watcher's scenario, then the socket load. BENCH_SCENARIOS naming only
 * `bitcoin-watch` runs it without building the read benchmark's datasets.
 */
async function main(): Promise<void> {
  const settings = readSettings();
  const wanted = settings.scenarios;
  const readScenarios = wanted?.filter((name) => name !== BITCOIN_WATCH_SCENARIO);
  if (readScenarios === undefined || readScenarios.length > 0) await runReadBenchmark(settings, readScenarios);
  if (wanted === undefined || wanted.includes(BITCOIN_WATCH_SCENARIO)) await runBitcoinWatch();
  if (socketLoadWanted()) await runSocketLoad();
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE_DIR = join(PROJECT_ROOT, '.bench-cache');
export const CLI_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js');
export const BENCHMARKS_FILE = join(PROJECT_ROOT, 'BENCHMARKS.md');

export const FULL_ORDER_COUNT = 1_000_000;
export const DEFAULT_SECONDS = 10;
export const DEFAULT_ROUNDS = 3;
export const DEFAULT_CONNECTIONS = 32;

export type LoadToolName = 'wrk' | 'autocannon';
export type StoreName = 'sqlite' | 'postgres';
const STORE_NAMES: readonly StoreName[] = ['sqlite', 'postgres'];

export interface BenchSettings {
  readonly orders: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  /** Undefined: wrk when it is on PATH, else autocannon. */
  readonly tool?: LoadToolName;
  /** Base PostgreSQL URL; the bench adds its own `schema` parameter. */
  readonly postgresUrl: string;
  readonly profile: boolean;
  /** False skips timing `lnswap import` (a smoke run). */
  readonly timeImport: boolean;
  /** Undefined: every scenario. */
  readonly scenarios?: readonly string[];
  /** The lnswap stores measured: both unless BENCH_STORES names fewer (a 10M PostgreSQL copy takes an hour). */
  readonly stores: readonly StoreName[];
  /** Servers on one core, the load generator on the others (`cpu-pinning.ts`); BENCH_PIN=0 turns it off. */
  readonly pin: boolean;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function nonNegativeInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number of seconds, got "${raw}"`);
  return Number(raw);
}

function loadTool(): LoadToolName | undefined {
  const raw = process.env.BENCH_TOOL;
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'wrk' && raw !== 'autocannon') throw new Error(`BENCH_TOOL must be wrk or autocannon, got "${raw}"`);
  return raw;
}

function stores(): StoreName[] {
  const raw = process.env.BENCH_STORES;
  if (raw === undefined || raw === '') return [...STORE_NAMES];
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !STORE_NAMES.includes(name as StoreName));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`BENCH_STORES must list sqlite and/or postgres, got "${raw}"`);
  }
  return STORE_NAMES.filter((name) => names.includes(name));
}

export function readSettings(): BenchSettings {
  const seconds = positiveInteger('BENCH_SECONDS', DEFAULT_SECONDS);
  const scenarios = process.env.BENCH_SCENARIOS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const tool = loadTool();
  return {
    orders: positiveInteger('BENCH_ORDERS', FULL_ORDER_COUNT),
    seconds,
    warmupSeconds: nonNegativeInteger('BENCH_WARMUP_SECONDS', Math.min(3, seconds)),
    rounds: positiveInteger('BENCH_ROUNDS', DEFAULT_ROUNDS),
    connections: positiveInteger('BENCH_CONNECTIONS', DEFAULT_CONNECTIONS),
    ...(tool === undefined ? {} : { tool }),
    postgresUrl: process.env.DATABASE_URL || 'postgres://127.0.0.1:5432/test',
    profile: process.env.BENCH_PROFILE === '1',
    timeImport: process.env.BENCH_IMPORT !== '0',
    ...(scenarios && scenarios.length > 0 ? { scenarios } : {}),
    stores: stores(),
    pin: process.env.BENCH_PIN !== '0',
  };
}

/** A run that measures less than the issue asks for is a smoke run and is labelled as one wherever it is shown. */
export function isSmokeRun(settings: BenchSettings): boolean {
  return (
    settings.orders < FULL_ORDER_COUNT ||
    settings.seconds < DEFAULT_SECONDS ||
    settings.rounds < DEFAULT_ROUNDS ||
    settings.connections !== DEFAULT_CONNECTIONS ||
    !settings.timeImport ||
    settings.scenarios !== undefined ||
    settings.stores.length < STORE_NAMES.length
  );
}

export type BitcoinBackendKind = 'esplora' | 'core';

export interface BitcoinWatchSettings {
  /** Live orders in each store; one service per count, all following the same chain at once. */
  readonly orderCounts: readonly number[];
  /** Seconds of mempool traffic measured. */
  readonly trafficSeconds: number;
  readonly backend: BitcoinBackendKind;
}

export const BITCOIN_WATCH_SCENARIO = 'bitcoin-watch';
export const DEFAULT_ORDER_COUNTS: readonly number[] = [100, 10_000];
export const DEFAULT_TRAFFIC_SECONDS = 60;
/** Transactions entering the mempool per second: a few, as the issue asks (mainnet sees about 5). */
export const TRANSACTIONS_PER_SECOND = 3;
/** One transaction in this many funds a watched order; the rest pay addresses nobody watches. */
export const FUNDING_EVERY = 10;
/** A block holds what ten minutes of the traffic bring, as one every ten minutes on average would. */
export const BLOCK_SECONDS = 600;
/** The targets at 10,000 live orders, at the default poll interval. */
export const TARGET_ORDERS = 10_000;
export const TARGET_REQUESTS_PER_SECOND = 20;
export const TARGET_LATENCY_MS = 5_000;

function positiveWholeNumbers(name: string, fallback: readonly number[]): number[] {
  const text = process.env[name];
  if (text === undefined || text === '') return [...fallback];
  const values = text.split(',').map((part) => part.trim());
  if (values.some((value) => !/^\d+$/.test(value) || Number(value) === 0)) {
    throw new Error(`${name} must list positive whole numbers, got "${text}"`);
  }
  return values.map(Number);
}

export function readBitcoinWatchSettings(): BitcoinWatchSettings {
  const orderCounts = positiveWholeNumbers('BENCH_BITCOIN_ORDERS', DEFAULT_ORDER_COUNTS).sort((a, b) => a - b);
  const [trafficSeconds] = positiveWholeNumbers('BENCH_BITCOIN_TRAFFIC_SECONDS', [DEFAULT_TRAFFIC_SECONDS]);
  const backend = process.env.BENCH_BITCOIN_BACKEND || 'esplora';
  if (backend !== 'esplora' && backend !== 'core') {
    throw new Error(`BENCH_BITCOIN_BACKEND must be esplora or core, got "${backend}"`);
  }
  return { orderCounts, trafficSeconds: trafficSeconds!, backend };
}

/** Fewer orders or a shorter minute than the issue asks for. */
export function isSmokeBitcoinWatch(settings: BitcoinWatchSettings): boolean {
  return settings.trafficSeconds < DEFAULT_TRAFFIC_SECONDS || !settings.orderCounts.includes(TARGET_ORDERS);
}

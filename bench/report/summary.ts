import type { RoundResult } from '../measure.js';

export type TargetName = 'node:http' | 'lnswap SQLite' | 'lnswap PostgreSQL';

export const CEILING: TargetName = 'node:http';

export interface ScenarioTargetSummary {
  readonly scenario: string;
  readonly target: TargetName;
  readonly bodyBytes: number;
  readonly medianRequestsPerSecond: number;
  readonly roundsRequestsPerSecond: readonly number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxRssMegabytes: number;
  readonly failures: number;
  /** Median req/s over the ceiling's median req/s for the same scenario. */
  readonly ratioToCeiling: number;
  /** Undefined where the issue sets no target. */
  readonly verdict?: string;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The issues' targets, as a share of the ceiling: hot (issue 14, and issue 15's 5,000 random orders) and cold
 * (issue 15: the uncached read path). p99 and RSS apply to every scenario with a target.
 */
const HOT_TARGETS = { 'lnswap SQLite': 0.5, 'lnswap PostgreSQL': 0.3 } as const;
const RATIO_TARGETS: Readonly<Record<string, Partial<Record<TargetName, number>>>> = {
  'order-by-id': HOT_TARGETS,
  'orders-by-invoice-hash': HOT_TARGETS,
  'random-5000-order-by-id': HOT_TARGETS,
  'random-5000-orders-by-invoice-hash': HOT_TARGETS,
  'cold-order-by-id': { 'lnswap SQLite': 0.35, 'lnswap PostgreSQL': 0.25 },
  'cold-orders-by-invoice-hash': { 'lnswap SQLite': 0.3, 'lnswap PostgreSQL': 0.25 },
  'cold-fund-details': { 'lnswap SQLite': 0.3 },
  'cold-refund': { 'lnswap SQLite': 0.3 },
};
const P99_TARGET_MS: Readonly<Partial<Record<TargetName, number>>> = { 'lnswap SQLite': 10 };
const RSS_TARGET_MEGABYTES = 250;

function verdictFor(summary: Omit<ScenarioTargetSummary, 'verdict'>): string | undefined {
  if (summary.target === CEILING) return undefined;
  const ratioTarget = RATIO_TARGETS[summary.scenario]?.[summary.target];
  const misses: string[] = [];
  if (summary.failures > 0) misses.push(`${summary.failures} failed requests`);
  if (ratioTarget !== undefined && summary.ratioToCeiling < ratioTarget) misses.push(`ratio < ${ratioTarget}`);
  const p99Target = P99_TARGET_MS[summary.target];
  if (ratioTarget !== undefined && p99Target !== undefined && summary.p99Ms > p99Target) {
    misses.push(`p99 > ${p99Target} ms`);
  }
  if (summary.maxRssMegabytes > RSS_TARGET_MEGABYTES) misses.push(`RSS > ${RSS_TARGET_MEGABYTES} MB`);
  return misses.length === 0 ? 'met' : `MISSED: ${misses.join(', ')}`;
}

export function summarize(
  scenario: string,
  bodyBytes: number,
  rounds: ReadonlyMap<TargetName, readonly RoundResult[]>,
): ScenarioTargetSummary[] {
  const ceiling = median((rounds.get(CEILING) ?? []).map((round) => round.load.requestsPerSecond));
  return [...rounds.entries()].map(([target, results]) => {
    const summary = {
      scenario,
      target,
      bodyBytes,
      medianRequestsPerSecond: median(results.map((round) => round.load.requestsPerSecond)),
      roundsRequestsPerSecond: results.map((round) => round.load.requestsPerSecond),
      p50Ms: median(results.map((round) => round.load.p50Ms)),
      p99Ms: median(results.map((round) => round.load.p99Ms)),
      maxRssMegabytes: Math.max(...results.map((round) => round.maxRssMegabytes)),
      failures: results.reduce((sum, round) => sum + round.load.failures, 0),
      ratioToCeiling: median(results.map((round) => round.load.requestsPerSecond)) / ceiling,
    };
    const verdict = verdictFor(summary);
    return verdict === undefined ? summary : { ...summary, verdict };
  });
}

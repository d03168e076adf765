import { percentile } from '../socket-load/statistics.js';
import type { WatchResult } from './measure.js';
import { TARGET_LATENCY_MS, TARGET_ORDERS, TARGET_REQUESTS_PER_SECOND } from './settings.js';

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

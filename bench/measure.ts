import type { LoadResult, LoadTool } from './load/load-tool.js';
import type { RunningServer } from './processes.js';
import { RssSampler } from './rss-sampler.js';
import type { BenchSettings } from './settings.js';

export interface RoundResult {
  readonly load: LoadResult;
  readonly maxRssMegabytes: number;
}

/** A warm-up the numbers ignore (JIT, caches, connections), then the measured run with the server's RSS sampled. */
export async function measureRound(
  tool: LoadTool,
  server: RunningServer,
  paths: readonly string[],
  settings: BenchSettings,
): Promise<RoundResult> {
  const run = { baseUrl: server.baseUrl, paths, connections: settings.connections };
  if (settings.warmupSeconds > 0) await tool.run({ ...run, seconds: settings.warmupSeconds });
  const rss = new RssSampler(server.pid);
  const load = await tool.run({ ...run, seconds: settings.seconds });
  return { load, maxRssMegabytes: rss.stop() };
}

import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadTool } from '../load/load-tool.js';
import { freePort, startServer } from '../processes.js';
import type { BenchSettings } from '../settings.js';
import { PROJECT_ROOT } from '../settings.js';
import { formatProfileSummary, summarizeCpuProfile } from './cpu-profile.js';

const EXIT_ON_SIGTERM = join(PROJECT_ROOT, 'bench', 'profile', 'exit-on-sigterm.mjs');

export interface ProfileTarget {
  readonly title: string;
  /** `serve` arguments after the CLI entry point, without --port. */
  readonly serveArgs: readonly string[];
  readonly paths: readonly string[];
}

/**
 * Runs one lnswap server under `node --cpu-prof` through a warm-up and one measured load, and summarizes where its
 * CPU time went during the measured load. The profile's clock starts once node has booted, a little after the spawn,
 * so leaving out the time up to the measured load drops start-up and warm-up whole (and at most the first few tens
 * of milliseconds of the load). Its throughput is not reported: the profiler slows the server down.
 */
export async function profileServer(
  target: ProfileTarget,
  tool: LoadTool,
  settings: BenchSettings,
  workDir: string,
): Promise<string> {
  const directory = join(workDir, 'profiles', target.title.replace(/[^A-Za-z0-9]+/g, '-'));
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const port = await freePort();
  const spawnedAt = performance.now();
  const server = await startServer({
    name: `${target.title} (profiled)`,
    args: [
      '--cpu-prof',
      `--cpu-prof-dir=${directory}`,
      '--import',
      EXIT_ON_SIGTERM,
      ...target.serveArgs,
      '--port',
      String(port),
    ],
    port,
    logFile: join(directory, 'server.log'),
    readyPath: '/api/markets',
  });
  let measuredFromMs: number;
  try {
    const run = { baseUrl: server.baseUrl, paths: target.paths, connections: settings.connections };
    await tool.run({ ...run, seconds: Math.max(settings.warmupSeconds, 1) });
    measuredFromMs = performance.now() - spawnedAt;
    await tool.run({ ...run, seconds: settings.seconds });
  } finally {
    await server.stop();
  }
  const profile = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
  if (profile === undefined) return `${target.title}: no profile was written (did the server exit cleanly?)`;
  const file = join(directory, profile);
  const title = `CPU profile, ${target.title} (${file.slice(PROJECT_ROOT.length + 1)})`;
  return formatProfileSummary(title, summarizeCpuProfile(file, PROJECT_ROOT, measuredFromMs));
}

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult, LoadRun, LoadTool } from './load-tool.js';

/** One wrk thread: the machine has two cores and the server under test needs one of them more than wrk does. */
const WRK_THREADS = 1;

/**
 * wrk requests the paths in a loop starting at a random offset (the list itself comes shuffled), with every request
 * formatted once up front; `done` prints the numbers as one machine-readable line.
 */
function luaScript(paths: readonly string[]): string {
  const list = paths.map((path) => `  ${JSON.stringify(path)},`).join('\n');
  return `local paths = {
${list}
}
local requests = {}
local position = 0

function init(args)
  for i, path in ipairs(paths) do
    requests[i] = wrk.format("GET", path)
  end
  math.randomseed(os.time())
  position = math.random(#requests) - 1
end

function request()
  position = position % #requests + 1
  return requests[position]
end

function done(summary, latency, _)
  local errors = summary.errors
  io.write(string.format("BENCH_RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99),
    errors.status + errors.connect + errors.read + errors.write + errors.timeout))
end
`;
}

export function wrkVersion(): string | undefined {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return /wrk (\S+)/.exec(`${probe.stdout}${probe.stderr}`)?.[1] ?? 'unknown';
}

export function createWrkTool(version: string, scriptDir: string): LoadTool {
  mkdirSync(scriptDir, { recursive: true });
  const scriptFor = (paths: readonly string[]) => {
    const script = luaScript(paths);
    const file = join(scriptDir, `${createHash('sha256').update(script).digest('hex').slice(0, 16)}.lua`);
    writeFileSync(file, script);
    return file;
  };
  return {
    name: 'wrk',
    version,
    async run(run: LoadRun): Promise<LoadResult> {
      const args = ['-t', String(WRK_THREADS), '-c', String(run.connections), '-d', `${run.seconds}s`];
      args.push('-s', scriptFor(run.paths), run.baseUrl);
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exitCode = await new Promise<number>((resolveExit) => {
        child.once('close', (code) => resolveExit(code ?? 1));
      });
      const match = /BENCH_RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(output);
      if (exitCode !== 0 || !match) throw new Error(`wrk failed (exit ${exitCode}):\n${output}`);
      const [requests = 0, durationMicros = 1, p50Micros = 0, p99Micros = 0, failures = 0] = match.slice(1).map(Number);
      return {
        requests,
        requestsPerSecond: requests / (durationMicros / 1e6),
        p50Ms: p50Micros / 1000,
        p99Ms: p99Micros / 1000,
        failures,
      };
    },
  };
}

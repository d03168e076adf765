import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuPinning } from '../cpu-pinning.js';
import type { LoadResult, LoadRun, LoadTool } from './load-tool.js';

/** One wrk thread: the machine has two cores and the server under test needs one of them more than wrk does. */
const WRK_THREADS = 1;

/**
 * wrk requests the paths of a file, one a line, in a loop starting at a random offset (the list itself comes
 * shuffled), with every request formatted once up front; `done` prints the numbers as one machine-readable line.
 * The paths are read from a file rather than written into the script: Lua refuses a chunk with 200,000 constants.
 */
export const WRK_SCRIPT = `local requests = {}
local position = 0

function init(args)
  for path in io.lines(args[1]) do
    requests[#requests + 1] = wrk.format("GET", path)
  end
  if #requests == 0 then
    error("no paths in " .. args[1])
  end
  math.randomseed(os.time() + os.clock() * 1000000)
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

/** The paths as the script reads them: one a line. */
export function pathsFileContent(paths: readonly string[]): string {
  for (const path of paths) {
    if (/[\r\n]/.test(path)) throw new Error(`a request path holds a line break: ${JSON.stringify(path)}`);
  }
  return `${paths.join('\n')}\n`;
}

export function wrkVersion(): string | undefined {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return /wrk (\S+)/.exec(`${probe.stdout}${probe.stderr}`)?.[1] ?? 'unknown';
}

export function createWrkTool(version: string, scriptDir: string, pinning: CpuPinning): LoadTool {
  mkdirSync(scriptDir, { recursive: true });
  const script = join(scriptDir, 'paths.lua');
  writeFileSync(script, WRK_SCRIPT);
  const pathsFileFor = (paths: readonly string[]) => {
    const content = pathsFileContent(paths);
    const file = join(scriptDir, `${createHash('sha256').update(content).digest('hex').slice(0, 16)}.paths`);
    writeFileSync(file, content);
    return file;
  };
  return {
    name: 'wrk',
    version,
    async run(run: LoadRun): Promise<LoadResult> {
      const args = ['-t', String(WRK_THREADS), '-c', String(run.connections), '-d', `${run.seconds}s`];
      args.push('-s', script, run.baseUrl, '--', pathsFileFor(run.paths));
      const [command, pinnedArgs] = pinning.wrap('load', 'wrk', args);
      const child = spawn(command, pinnedArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
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

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CpuPinning } from '../cpu-pinning.js';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadRun, LoadTool } from './load-tool.js';

const RUNNER = fileURLToPath(new URL('./autocannon-runner.ts', import.meta.url));

/** The line autocannon-runner.ts prints. */
interface RunnerOutput {
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

export function autocannonVersion(): string {
  const packageJson = createRequire(import.meta.url).resolve('autocannon/package.json');
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

export function createAutocannonTool(pathsDir: string, pinning: CpuPinning): LoadTool {
  mkdirSync(pathsDir, { recursive: true });
  return {
    name: 'autocannon',
    version: autocannonVersion(),
    async run(run: LoadRun): Promise<LoadResult> {
      const json = JSON.stringify(run.paths);
      const pathsFile = join(pathsDir, `${createHash('sha256').update(json).digest('hex').slice(0, 16)}.json`);
      writeFileSync(pathsFile, json);
      const [command, args] = pinning.wrap('load', process.execPath, [
        '--import',
        'tsx',
        RUNNER,
        run.baseUrl,
        String(run.seconds),
        String(run.connections),
        pathsFile,
      ]);
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exitCode = await new Promise<number>((resolveExit) => {
        child.once('close', (code) => resolveExit(code ?? 1));
      });
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (exitCode !== 0 || line === undefined) throw new Error(`autocannon failed (exit ${exitCode}):\n${output}`);
      const parsed = JSON.parse(line) as RunnerOutput;
      return {
        requests: parsed.requests,
        requestsPerSecond: parsed.requests / parsed.seconds,
        p50Ms: parsed.p50Ms,
        p99Ms: parsed.p99Ms,
        failures: parsed.failures,
      };
    },
  };
}

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { programArgs } from '../repository.js';

/**
 * The real command line, started as its own process: `build/src/cli/main.js` under `npm test`, or the source
 * through tsx when a test runs as TypeScript.
 */
const CLI_COMMAND: readonly string[] = programArgs(import.meta.url, '../../../src/cli/main');

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Chain settings a developer's shell may carry; a test names the ones it wants. */
const CHAIN_CONFIGURATION = ['ETHEREUM_RPC_URL', 'DEPLOYER_PRIVATE_KEY', 'OWNER_PRIVATE_KEY'] as const;

/** The environment minus what the CLI would read as configuration, plus `env`. */
function environment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, PORT: _port, HOST: _host, LOG_LEVEL: _level, ...rest } = process.env;
  for (const name of CHAIN_CONFIGURATION) delete rest[name];
  return { ...rest, ...env };
}

export function startCli(args: readonly string[], options: CliOptions = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...CLI_COMMAND, ...args], {
    cwd: options.cwd,
    env: environment(options.env),
  });
}

/** Collects everything a stream gives until it ends. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function finished(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  const [stdout, stderr, [code]] = await Promise.all([
    readAll(child.stdout),
    readAll(child.stderr),
    once(child, 'close'),
  ]);
  return { code: code as number | null, stdout, stderr };
}

export async function runCli(
  args: readonly string[],
  options: CliOptions & { input?: string } = {},
): Promise<CliResult> {
  const child = startCli(args, options);
  child.stdin.end(options.input ?? '');
  return finished(child);
}

/**
 * The same command line run inside the test's own process: `runCommandLine` is all of `lnswap` but its process,
 * so a test of what a command does skips the start of a Node process and its module graph (about a CPU-second a
 * run). What only the process shows (exit status, pipes between commands, signals, the working directory) keeps
 * its tests through runCli, at least one for each command.
 */
export async function runInProcess(
  args: readonly string[],
  options: Omit<CliOptions, 'cwd'> & { input?: string } = {},
): Promise<CliResult> {
  // Loaded here, so a file that only spawns the command never loads its module graph.
  const { runCommandLine } = await import('../../../src/cli/command-line.js');
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const output = Promise.all([readAll(stdout), readAll(stderr)]);
  const code = await runCommandLine(args, { env: environment(options.env), stdin, stdout, stderr });
  stdout.end();
  stderr.end();
  const [out, err] = await output;
  return { code, stdout: out, stderr: err };
}

/** Resolves with the first stdout line that `accept` returns a value for. */
export async function waitForLine<T>(
  child: ChildProcessWithoutNullStreams,
  accept: (line: string) => T | undefined,
): Promise<T> {
  let buffered = '';
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      seen += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const value = accept(line);
        if (value !== undefined) {
          child.stdout.off('data', onData);
          child.off('close', onClose);
          resolve(value);
          return;
        }
      }
    };
    const onClose = (code: number | null) => {
      reject(new Error(`the CLI exited (${code}) before printing it; stdout: ${seen}`));
    };
    child.stdout.on('data', onData);
    child.once('close', onClose);
  });
}

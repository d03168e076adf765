import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuPinning } from './cpu-pinning.js';
import { RssSampler } from './rss-sampler.js';

export interface RunningServer {
  readonly name: string;
  readonly pid: number;
  readonly baseUrl: string;
  readonly logFile: string;
  stop(): Promise<void>;
}

export interface ServerCommand {
  readonly name: string;
  readonly args: readonly string[];
  readonly port: number;
  /** Where its stdout and stderr go: a file, so a chatty server never blocks on a pipe nobody reads. */
  readonly logFile: string;
  /** A GET that answers 200 once the server is ready. */
  readonly readyPath: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The core it runs on; the scheduler's choice without. */
  readonly pinning?: CpuPinning;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

function logTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => resolveExit(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitForExit(child, 15_000))) {
    child.kill('SIGKILL');
    await waitForExit(child, 5_000);
  }
}

export async function startServer(command: ServerCommand): Promise<RunningServer> {
  const log = openSync(command.logFile, 'w');
  // taskset execs the command in its own process, so the pid is the server's.
  const [executable, args] = command.pinning?.wrap('server', process.execPath, command.args) ?? [
    process.execPath,
    [...command.args],
  ];
  const child = spawn(executable, args, {
    stdio: ['ignore', log, log],
    env: { ...process.env, ...command.env },
  });
  closeSync(log);
  const baseUrl = `http://127.0.0.1:${command.port}`;
  const server: RunningServer = {
    name: command.name,
    pid: child.pid!,
    baseUrl,
    logFile: command.logFile,
    stop: () => stopChild(child),
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${command.name} exited before it was ready; its log ends with:\n${logTail(command.logFile)}`);
    }
    try {
      const response = await fetch(`${baseUrl}${command.readyPath}`);
      await response.arrayBuffer();
      if (response.status === 200) return server;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(`${command.name} was not ready within 120 s; its log ends with:\n${logTail(command.logFile)}`);
}

export interface CommandResult {
  readonly exitCode: number;
  readonly seconds: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Largest VmRSS seen while it ran, MB. */
  readonly maxRssMegabytes: number;
}

/** Runs node with `args` to the end; stdout goes to `stdoutFile` when given (a snapshot is too large for memory). */
export async function runNode(
  args: readonly string[],
  options: { stdoutFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const stdoutFd = options.stdoutFile === undefined ? 'pipe' : openSync(options.stdoutFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', stdoutFd, 'pipe'],
    env: { ...process.env, ...options.env },
  });
  if (typeof stdoutFd === 'number') closeSync(stdoutFd);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const rss = new RssSampler(child.pid!);
  const exitCode = await new Promise<number>((resolveExit) => child.once('close', (code) => resolveExit(code ?? 1)));
  rss.stop();
  return { exitCode, seconds: (performance.now() - started) / 1000, stdout, stderr, maxRssMegabytes: rss.maxMegabytes };
}

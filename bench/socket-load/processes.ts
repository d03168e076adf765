import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../settings.js';

const HERE = join(PROJECT_ROOT, 'bench', 'socket-load');

/** A TypeScript entry of this folder in its own Node process, with an IPC channel; stderr shared with the bench. */
export function forkEntry(
  entry: 'instance.ts' | 'subscribers.ts' | 'flooder.ts',
  args: readonly string[],
): ChildProcess {
  return fork(join(HERE, entry), [...args], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

/** The child's next IPC message of type `type`; rejects if it exits first. */
export function nextMessage<T extends { type: string }>(child: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`${entryName(child)} exited (${code}) before sending ${type}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function entryName(child: ChildProcess): string {
  return child.spawnargs.find((arg) => arg.endsWith('.ts')) ?? 'child';
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

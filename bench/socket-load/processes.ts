import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Entries run in the caller's form: TypeScript through tsx for the bench, JavaScript under build/ for `npm test`. */
const TYPESCRIPT = import.meta.url.endsWith('.ts');

/** An entry of this folder in its own Node process, with an IPC channel; stderr shared with the bench. */
export function forkEntry(entry: 'instance' | 'subscribers' | 'flooder', args: readonly string[]): ChildProcess {
  return fork(join(HERE, `${entry}${TYPESCRIPT ? '.ts' : '.js'}`), [...args], {
    execArgv: TYPESCRIPT ? ['--import', 'tsx'] : [],
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
  return child.spawnargs.find((arg) => /\.[jt]s$/.test(arg)) ?? 'child';
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

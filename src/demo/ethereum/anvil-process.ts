import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface AnvilProcessOptions {
  /** The executable, as found by locateAnvilBinary. */
  readonly binary: string;
  readonly chainId: number;
  readonly mnemonic: string;
  readonly accounts: number;
  /** Ether each account starts with. */
  readonly balanceEther: number;
  /** Seconds between mined blocks; without it every transaction is mined at once into a block of its own. */
  readonly blockTimeSeconds?: number;
  /** Start with mining off, so transactions wait in the pool until blocks are mined on request. */
  readonly noMining?: boolean;
  /** How long Anvil may take to listen. Default 20 s. */
  readonly startupTimeoutMs?: number;
}

export interface AnvilProcess {
  /** JSON-RPC over HTTP on loopback. */
  readonly rpcUrl: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

/**
 * Starts Anvil on loopback at a free port (Anvil picks it: port 0) and resolves once it listens. Anvil is killed
 * when this process exits without stopping it, so no node outlives the process that started it.
 */
export async function startAnvilProcess(options: AnvilProcessOptions): Promise<AnvilProcess> {
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--chain-id',
    String(options.chainId),
    '--mnemonic',
    options.mnemonic,
    '--accounts',
    String(options.accounts),
    '--balance',
    String(options.balanceEther),
  ];
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.noMining) args.push('--no-mining');
  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const port = await listeningPort(child, options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS);
  return { rpcUrl: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopProcess(child) };
}

/** Anvil prints `Listening on 127.0.0.1:PORT` once its server is bound. */
function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  let output = '';
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`Anvil did not start within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      // Anvil goes on logging every request: keep draining so a full pipe never blocks it.
      child.stdout!.off('data', onData).resume();
      child.stderr!.resume();
      resolve(Number(match[1]));
    };
    const onExit = (code: number | null) =>
      fail(
        new Error(
          `Anvil exited (${code}) before listening${output.trim() === '' ? '' : `: ${output.trim().slice(-500)}`}`,
        ),
      );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

export interface AnvilNode {
  readonly rpcUrl: string;
  stop(): Promise<void>;
}

/** The Anvil binary of the optional dependency, or undefined where npm skipped it (not linux-amd64). */
export function anvilBinary(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts a fresh Anvil (blocks mined on demand unless `args` says otherwise) and waits until it answers. */
export async function startAnvil(args: readonly string[] = []): Promise<AnvilNode> {
  const binary = anvilBinary();
  if (binary === undefined) throw new Error('Anvil is not installed (@foundry-rs/anvil-linux-amd64)');
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--host', '127.0.0.1', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  };
  const rpcUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Anvil exited: ${output}`);
    const answered = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return { rpcUrl, stop };
    if (Date.now() - started > 15_000) {
      await stop();
      throw new Error(`Anvil did not answer within 15 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

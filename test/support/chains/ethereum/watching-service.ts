// A test-only `lnswap serve` with the Ethereum watcher: the service on the store named by argv[2], watching the
// node at argv[3] with argv[4] confirmations. Each watcher step is announced on stdout ("applying step", with its
// numbers of observations and order updates) and held for argv[5] ms before it is written, so a test can kill
// the process between reading a block and committing what it caused. Logs JSON lines to stdout; runs until killed.
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { startService } from '../../../../src/service.js';
import { openStore } from '../../../../src/store/open.js';
import type { ChainStep, Store } from '../../../../src/store/store.js';

const [databaseUrl, rpcUrl, confirmations, holdMs] = process.argv.slice(2);
if (databaseUrl === undefined || rpcUrl === undefined || confirmations === undefined || holdMs === undefined) {
  throw new Error('usage: watching-service.ts DATABASE_URL RPC_URL CONFIRMATIONS HOLD_MS');
}
const opened = await openStore(databaseUrl);
async function announcedStep(step: ChainStep): Promise<readonly number[] | undefined> {
  const announcement = { msg: 'applying step', observations: step.observations.length, orders: step.orders.length };
  process.stdout.write(`${JSON.stringify(announcement)}\n`);
  await sleep(Number(holdMs));
  return opened.applyChainStep(step);
}
const store = new Proxy(opened, {
  get(target, property) {
    if (property === 'applyChainStep') return announcedStep;
    const value: unknown = Reflect.get(target, property, target);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
}) as Store;
const service = await startService({
  store,
  host: '127.0.0.1',
  port: 0,
  logger: pino({ level: 'info' }),
  databaseUrl,
  ethereum: { rpcUrl, confirmations: Number(confirmations), pollIntervalMs: 20, startHeight: 0 },
});
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: service.url })}\n`);

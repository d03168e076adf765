// A test-only `lnswap serve` with the Ethereum watcher: the service on the store named by argv[2], watching the
// node at argv[3] with argv[4] confirmations. Logs JSON lines to stdout; runs until killed.
import pino from 'pino';
import { startService } from '../../../src/service.js';
import { openStore } from '../../../src/store/open.js';

const [databaseUrl, rpcUrl, confirmations] = process.argv.slice(2);
if (databaseUrl === undefined || rpcUrl === undefined || confirmations === undefined) {
  throw new Error('usage: watching-service.ts DATABASE_URL RPC_URL CONFIRMATIONS');
}
const store = await openStore(databaseUrl);
const service = await startService({
  store,
  host: '127.0.0.1',
  port: 0,
  logger: pino({ level: 'info' }),
  databaseUrl,
  ethereum: { rpcUrl, confirmations: Number(confirmations), pollIntervalMs: 50, startHeight: 0 },
});
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: service.url })}\n`);

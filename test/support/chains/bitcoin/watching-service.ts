// A test-only `lnswap serve` with the Bitcoin watcher: the service on the store named by argv[2], watching the
// Bitcoin Core RPC at argv[3] with argv[4] confirmations from block argv[5]. Logs JSON lines; runs until killed.
import pino from 'pino';
import { startService } from '../../../../src/service.js';
import { openStore } from '../../../../src/store/open.js';

const [databaseUrl, rpcUrl, confirmations, startHeight] = process.argv.slice(2);
if (databaseUrl === undefined || rpcUrl === undefined || confirmations === undefined || startHeight === undefined) {
  throw new Error('usage: watching-service.ts DATABASE_URL RPC_URL CONFIRMATIONS START_HEIGHT');
}
const store = await openStore(databaseUrl);
const service = await startService({
  store,
  host: '127.0.0.1',
  port: 0,
  logger: pino({ level: 'warn' }),
  databaseUrl,
  bitcoin: { rpcUrl, confirmations: Number(confirmations), pollIntervalMs: 10, startHeight: Number(startHeight) },
});
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: service.url })}\n`);

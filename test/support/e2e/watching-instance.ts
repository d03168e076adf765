// One instance of a cluster for the leadership test: the service on the PostgreSQL store at argv[2], watching
// the node at argv[3] with argv[4] confirmations, trying for the lead every 300 ms. JSON log lines on stdout.
import pino from 'pino';
import { startService } from '../../../src/service.js';
import { openStore } from '../../../src/store/open.js';

const [databaseUrl, rpcUrl, confirmations] = process.argv.slice(2);
if (databaseUrl === undefined || rpcUrl === undefined || confirmations === undefined) {
  throw new Error('usage: watching-instance.ts DATABASE_URL RPC_URL CONFIRMATIONS');
}
const logger = pino({ level: 'info' });
const store = await openStore(databaseUrl);
const service = await startService({
  store,
  host: '127.0.0.1',
  port: 0,
  logger,
  databaseUrl,
  ethereum: { rpcUrl, confirmations: Number(confirmations), pollIntervalMs: 50, startHeight: 0 },
  leadership: { retryIntervalMs: 300, keepAliveIntervalMs: 300 },
});
logger.info({ url: service.url }, 'listening');

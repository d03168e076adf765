/**
 * 30 seconds of one service following Bitcoin through the hostile stand-in node (test/support/hostile-node.ts)
 * at the production poll interval and timeouts, while one client reads an order and asks `/readyz` in turn as
 * fast as answers come: node requests made, reads served, read p99, peak RSS. The service, the stand-in and the
 * honest test node share this process, so RSS counts all three.
 *
 *   node --import tsx bench/hostile-node.ts honest|hang|huge|shiftingHashes
 */
import pino from 'pino';
import { startService } from '../src/service.js';
import { BitcoinTestChain } from '../test/support/bitcoin-node/chain.js';
import { startTestBitcoinNode } from '../test/support/bitcoin-node/server.js';
import { BITCOIN_VIEW, buildOrder, configuration, seedStore } from '../test/support/fixtures.js';
import { startHostileNode, type HostileMode } from '../test/support/hostile-node.js';
import { openFreshStore } from '../test/support/stores.js';

const MODES: readonly HostileMode[] = ['honest', 'hang', 'huge', 'shiftingHashes'];
const RUN_MS = 30_000;
const MIB = 2 ** 20;

const mode = process.argv[2] as HostileMode;
if (!MODES.includes(mode)) throw new Error(`usage: hostile-node.ts ${MODES.join('|')}`);

const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
chain.mine({ txs: [] });
chain.mine({ txs: [] });
const honest = await startTestBitcoinNode(chain);
const node = await startHostileNode(new URL(honest.esploraUrl).origin);
const fresh = await openFreshStore('sqlite');
const order = buildOrder({ label: 'hostile node bench', createdAt: Date.now() });
await seedStore(fresh.store, { configuration: configuration({ markets: ['BTC_LBTC'] }), orders: [order.record] });
const service = await startService({
  store: fresh.store,
  host: '127.0.0.1',
  port: 0,
  logger: pino({ level: 'silent' }),
  bitcoin: { esploraUrl: `${node.origin}/api`, confirmations: 1 },
});
// Let the watcher take its first step on the honest node, then turn; a new block makes it read address histories.
await new Promise((resolve) => setTimeout(resolve, 1_500));
node.mode = mode;
chain.mine({ txs: [] });
const requestsBefore = node.requests.length;
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const latencies: number[] = [];
const end = Date.now() + RUN_MS;
while (Date.now() < end) {
  const started = performance.now();
  await (await fetch(`${service.url}/api/orders/${order.record.id}`)).arrayBuffer();
  latencies.push(performance.now() - started);
  await (await fetch(`${service.url}/readyz`)).text();
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}
latencies.sort((a, b) => a - b);
const readyz = await (await fetch(`${service.url}/readyz`)).text();
process.stdout.write(
  `${JSON.stringify({
    mode,
    seconds: RUN_MS / 1_000,
    nodeRequests: node.requests.length - requestsBefore,
    readsAndReadyzProbes: latencies.length,
    readP99Ms: Number((latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN).toFixed(1)),
    readyz,
    rssBeforeMiB: Math.round(rssBefore / MIB),
    peakRssMiB: Math.round(peakRss / MIB),
  })}\n`,
);
await service.close();
await node.close();
await honest.close();
await fresh.dispose();

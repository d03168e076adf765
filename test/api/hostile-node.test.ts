/**
 * A service following Bitcoin through a node that turns hostile: hangs, answers 200 MB, changes its block
 * hashes on every call. Throughout, the service stays up, serves order
 * reads within its usual latency, keeps its memory bounded, says on `/readyz`, `/metrics` and in its log what
 * the node does, asks the node nothing per `/readyz` or `/metrics` request, and records nothing the node said
 * (the watcher's cursor and the order stay as they were). Back to honest, it is ready again by itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { NodeFault } from '../../src/chains/node-faults.js';
import type { NotReadyToken } from '../../src/engine/operations/readiness.js';
import { startService, type RunningService } from '../../src/service.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import { eventually } from '../support/eventually.js';
import { BITCOIN_VIEW, buildOrder, configuration, seedStore } from '../support/fixtures.js';
import { startHostileNode, type HostileMode, type HostileNode } from '../support/hostile-node.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';

const READS = 300;
const MIB = 2 ** 20;

let honest: TestBitcoinNode;
let node: HostileNode;
let fresh: FreshStore;
let service: RunningService;
const order = buildOrder({ label: 'hostile node order', createdAt: Date.now() });
const logs: { msg: string; fault?: string }[] = [];

before(async () => {
  const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  // The watcher starts at the tip and needs the block before it.
  chain.mine({ txs: [] });
  chain.mine({ txs: [] });
  honest = await startTestBitcoinNode(chain);
  node = await startHostileNode(new URL(honest.esploraUrl).origin);
  fresh = await openFreshStore('sqlite');
  await seedStore(fresh.store, { configuration: configuration({ markets: ['BTC_LBTC'] }), orders: [order.record] });
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as (typeof logs)[number]) },
  );
  service = await startService({
    store: fresh.store,
    host: '127.0.0.1',
    port: 0,
    logger,
    // Long enough to read the huge answer to its size cap on a loaded machine: shorter, it times out first and
    // reads as unreachable rather than misbehaving.
    bitcoin: { esploraUrl: `${node.origin}/api`, confirmations: 1, pollIntervalMs: 50, timeoutMs: 1_500 },
  });
});
after(async () => {
  await service?.close();
  await node?.close();
  await honest?.close();
  await fresh?.dispose();
});

const readyz = async () => (await fetch(`${service.url}/readyz`)).text();

/** The p99 of `READS` order reads one after another, in ms, and the highest RSS seen meanwhile. */
async function readLoad(): Promise<{ p99: number; rss: number }> {
  const latencies: number[] = [];
  let rss = process.memoryUsage().rss;
  for (let index = 0; index < READS; index++) {
    const started = performance.now();
    const response = await fetch(`${service.url}/api/orders/${order.record.id}`);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    if (index % 20 === 0) rss = Math.max(rss, process.memoryUsage().rss);
  }
  latencies.sort((a, b) => a - b);
  return { p99: latencies[Math.floor(READS * 0.99)] ?? Number.NaN, rss };
}

const cases: { mode: HostileMode; token: NotReadyToken; fault: NodeFault }[] = [
  { mode: 'hang', token: 'ChainUnreachable', fault: 'timeout' },
  { mode: 'huge', token: 'ChainNodeMisbehaving', fault: 'tooLarge' },
  // Esplora blocks are read raw and checked against their hash: a hash that shifts under its block is a bad answer.
  { mode: 'shiftingHashes', token: 'ChainNodeMisbehaving', fault: 'badAnswer' },
];

test('a hostile node bends nothing: reads, memory, readiness, metrics, log and store', async (t) => {
  await eventually(async () => (await readyz()) === 'Ready', 'ready on the honest node');
  const caughtUp = async () => {
    let watch: Awaited<ReturnType<typeof fresh.store.getChainWatch>>;
    await eventually(async () => {
      watch = await fresh.store.getChainWatch('bitcoin');
      return watch?.cursor.height === honest.chain.tipHeight;
    }, 'the watcher at the honest tip');
    return watch!.cursor;
  };
  const baseline = await readLoad();
  t.diagnostic(`honest node: read p99 ${baseline.p99.toFixed(1)} ms, RSS ${(baseline.rss / MIB).toFixed(0)} MiB`);

  for (const { mode, token, fault } of cases) {
    const cursor = await caughtUp();
    node.mode = mode;
    await eventually(async () => (await readyz()) === token, `${token} while the node is ${mode}`);
    const requestsBefore = node.requests.length;
    const probesStarted = performance.now();
    for (let index = 0; index < 100; index++) {
      assert.equal(await readyz(), token);
      assert.equal((await fetch(`${service.url}/metrics`)).status, 200);
    }
    const probesMs = performance.now() - probesStarted;
    const nodeRequests = node.requests.length - requestsBefore;
    const load = await readLoad();
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    t.diagnostic(
      `${mode}: /readyz ${token}; 200 /readyz and /metrics requests in ${probesMs.toFixed(0)} ms while the watcher made ` +
        `${nodeRequests} node requests; read p99 ${load.p99.toFixed(1)} ms; RSS ${(load.rss / MIB).toFixed(0)} MiB`,
    );
    assert.match(metrics, /^lnswap_chain_node_up\{chain="bitcoin"\} 0$/m);
    assert.match(
      metrics,
      new RegExp(`^lnswap_chain_node_faults_total\\{chain="bitcoin",fault="${fault}"\\} [1-9]`, 'm'),
    );
    assert.ok(
      logs.some((line) => line.fault === fault && line.msg.startsWith('bitcoin node')),
      `a log line names the ${fault}`,
    );
    assert.ok(load.p99 < Math.max(100, 10 * baseline.p99), `read p99 ${load.p99} ms`);
    assert.ok(load.rss - baseline.rss < 256 * MIB, `RSS grew to ${load.rss} bytes`);
    if (mode === 'hang') {
      // Every call the watcher makes hangs 300 ms; a call per probe would be 200 here.
      assert.ok(nodeRequests < 20 + probesMs / 300, `${nodeRequests} node requests`);
    }
    assert.deepEqual((await fresh.store.getChainWatch('bitcoin'))?.cursor, cursor, 'the cursor stays');
    assert.equal((await fresh.store.getOrder(order.record.id))?.state, order.record.state);
    node.mode = 'honest';
    await eventually(async () => (await readyz()) === 'Ready', `ready again after ${mode}`);
  }
});

test('a node that cannot list its mempool stays followed and ready, and /metrics says the mempool is not read', async () => {
  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();
  const mempoolListed = async (value: 0 | 1) =>
    new RegExp(`^lnswap_chain_mempool_listed\\{chain="bitcoin"\\} ${value}$`, 'm').test(await metrics());
  await eventually(() => mempoolListed(1), 'the mempool listed by the honest node');
  node.mode = 'garbledMempool';
  try {
    await eventually(() => mempoolListed(0), 'the garbled listing reported');
    assert.equal(await readyz(), 'Ready', 'blocks are still read: the chain is followed');
    const text = await metrics();
    assert.match(text, /^lnswap_chain_node_up\{chain="bitcoin"\} 1$/m);
    assert.match(text, /^lnswap_chain_mempool_misses_total\{chain="bitcoin"\} [1-9]/m);
  } finally {
    node.mode = 'honest';
  }
  await eventually(() => mempoolListed(1), 'the mempool listed again');
});

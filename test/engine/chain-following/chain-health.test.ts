/**
 * The node probe of an instance that does not watch a chain: it keeps the node's health current on its own
 * schedule, stays quiet while this instance's watcher polls, and takes over (clearing the watcher's last
 * fault once the node answers) when the watcher stops, as after a lost leadership.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora-backend.js';
import { NodeCallFailed } from '../../../src/chains/node-faults.js';
import { ChainHealth, startNodeProbe } from '../../../src/engine/chain-following/chain-health.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { eventually } from '../../support/eventually.js';
import { startHostileNode, type HostileNode } from '../../support/hostile-node.js';
import { recordingLogger } from '../../support/ws/harness.js';

const INTERVAL_MS = 100;
let honest: TestBitcoinNode;
let node: HostileNode;
let backend: EsploraBackend;

before(async () => {
  const chain = new BitcoinTestChain('mainnet', 800_000);
  chain.mine({ txs: [] });
  honest = await startTestBitcoinNode(chain);
  node = await startHostileNode(new URL(honest.esploraUrl).origin);
  backend = new EsploraBackend(`${node.origin}/api`, 'mainnet', { timeoutMs: 200, maxBytes: 1024 * 1024 });
});
after(async () => {
  await node?.close();
  await honest?.close();
});

test('the probe reads the tip on its own, stays quiet while the watcher polls, and takes over after it', async () => {
  const health = new ChainHealth('bitcoin', pino({ level: 'silent' }));
  const probe = startNodeProbe(backend, health, INTERVAL_MS);
  try {
    await eventually(() => health.reading().tip?.height === honest.chain.tipHeight, 'the probe read the tip');
    node.mode = 'huge';
    await eventually(() => health.reading().fault === 'tooLarge', 'the probe met the fault');
    node.mode = 'honest';
    await eventually(() => health.reading().fault === undefined, 'the probe saw the node answer again');

    health.pollStarted();
    const asked = node.requests.length;
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 5));
    assert.equal(node.requests.length, asked, 'no probe while the watcher polls');
    health.pollFailed(new NodeCallFailed('badAnswer', node.origin, 'Esplora GET /mempool/txids', 'not a list'));
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS / 5));
    assert.equal(health.reading().fault, 'badAnswer', 'the watcher just polled: its fault stands');
    // The watcher polls no more (its instance lost the lead): the probe's next reading is the node's health.
    await eventually(() => health.reading().fault === undefined, 'the probe took over');
    assert.ok(node.requests.length > asked);
  } finally {
    await probe.stop();
  }
});

test("a node's fault is logged as its fault, node and one bounded line, without a stack; a bug whole", () => {
  const { logger, lines } = recordingLogger();
  const health = new ChainHealth('ethereum', logger);
  const fault = new NodeCallFailed(
    'badAnswer',
    'http://127.0.0.1:8545',
    'ethereum eth_getCode',
    `0x${'ab'.repeat(5e6)}`,
  );
  health.pollFailed(new Error('An unknown RPC error occurred.', { cause: fault }));
  const [logged] = lines;
  assert.equal(logged?.msg, 'ethereum node misbehaving: badAnswer');
  assert.equal(logged?.fault, 'badAnswer');
  assert.equal(logged?.node, 'http://127.0.0.1:8545');
  assert.match(String(logged?.reason), /^ethereum eth_getCode at http:\/\/127\.0\.0\.1:8545: 0x(ab)+…$/);
  assert.ok(String(logged?.reason).length < 300, 'the detail cut to 200 characters');
  assert.equal(logged?.err, undefined, 'no stack for a node fault');
  health.pollFailed(new TypeError('a bug'));
  const bug = lines[1] as { msg?: string; err?: { stack?: string } } | undefined;
  assert.equal(bug?.msg, 'ethereum watcher poll failed');
  assert.match(bug?.err?.stack ?? '', /TypeError: a bug\n\s+at /);
});

/**
 * Both Bitcoin backends against a node that hangs, answers 200 MB or answers what is not JSON: every call ends
 * within its timeout with the node's fault named, memory stays bounded, and no error shows the node's
 * credentials or path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc-backend.js';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora-backend.js';
import { NodeCallFailed, type NodeFault } from '../../../src/chains/node-faults.js';
import { MAX_ANSWER_BYTES } from '../../../src/chains/node-http.js';
import { ChainWatcher } from '../../../src/engine/chain-following/chain-watcher.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from '../../support/bitcoin-wallet.js';
import { buildOrder, configuration, hex32, seedStore } from '../../support/fixtures.js';
import { startHostileNode, type HostileNode } from '../../support/hostile-node.js';
import { openFreshStore } from '../../support/stores.js';
import { recordingLogger } from '../../support/ws/harness.js';

const TIMEOUT_MS = 300;
/** For the calls that must time out: short, so the test does not wait long for them. */
const hasty = { timeoutMs: TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES };
/**
 * For every other call: a loaded machine can take more than 300 ms over a first call (connections opened, code
 * compiled), and a timeout there would hide the fault the test expects.
 */
const patient = { timeoutMs: 10_000, maxBytes: MAX_ANSWER_BYTES };

let honest: TestBitcoinNode;
let node: HostileNode;
let esplora: EsploraBackend;
let core: CoreRpcBackend;
let rpcUrl: string;

before(async () => {
  const chain = new BitcoinTestChain('mainnet', 700_000);
  chain.mine({ txs: [] });
  honest = await startTestBitcoinNode(chain);
  node = await startHostileNode(new URL(honest.esploraUrl).origin);
  esplora = new EsploraBackend(`${node.origin}/api`, 'mainnet', patient);
  rpcUrl = `http://${honest.rpcUser}:${honest.rpcPassword}@${node.origin.slice('http://'.length)}/`;
  core = new CoreRpcBackend(rpcUrl, 'mainnet', {}, patient);
});
after(async () => {
  await node?.close();
  await honest?.close();
});

async function failsWith(call: Promise<unknown>, fault: NodeFault): Promise<NodeCallFailed> {
  const error = await call.then(
    () => assert.fail(`expected a ${fault} fault`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof NodeCallFailed, `a NodeCallFailed, not ${String(error)}`);
  assert.equal(error.fault, fault);
  assert.ok(!error.message.includes(honest.rpcPassword), 'the password stays out of the message');
  assert.ok(!error.message.includes('/api'), 'the path stays out of the message');
  return error;
}

describe('Bitcoin backends against a hostile node', () => {
  test('both answer honestly through the stand-in while it is honest', async () => {
    node.mode = 'honest';
    assert.deepEqual(await esplora.tip(), await core.tip());
  });

  test('a node that never answers: each call fails as a timeout within its bound', async () => {
    node.mode = 'hang';
    const hastyBackends = [
      new EsploraBackend(`${node.origin}/api`, 'mainnet', hasty),
      new CoreRpcBackend(rpcUrl, 'mainnet', {}, hasty),
    ];
    for (const backend of hastyBackends) {
      const started = performance.now();
      await failsWith(backend.tip(), 'timeout');
      const took = performance.now() - started;
      assert.ok(took < TIMEOUT_MS + 1_000, `took ${Math.round(took)} ms`);
    }
  });

  test('a node answering 200 MB: refused past the cap, the rest never read, the heap bounded', async (t) => {
    node.mode = 'huge';
    const sentBefore = node.hugeBytesSent();
    const heapBefore = process.memoryUsage().heapUsed;
    // Time enough to read the 12 MiB on a loaded machine: the cap, not the timeout, must end the call.
    const error = await failsWith(new EsploraBackend(`${node.origin}/api`, 'mainnet', patient).tip(), 'tooLarge');
    await failsWith(new CoreRpcBackend(rpcUrl, 'mainnet', {}, patient).tip(), 'tooLarge');
    const sent = node.hugeBytesSent() - sentBefore;
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    t.diagnostic(
      `${error.message}; the node got ${(sent / 2 ** 20).toFixed(1)} MiB out of 400 MiB offered; heap +${(heapGrowth / 2 ** 20).toFixed(1)} MiB`,
    );
    // Socket buffers on both sides hold a few MiB beyond what the client read.
    assert.ok(sent < 2 * (MAX_ANSWER_BYTES + 16 * 2 ** 20), `sent ${sent} bytes`);
    assert.ok(heapGrowth < 64 * 2 ** 20, `heap grew ${heapGrowth} bytes`);
  });

  test('a mempool the node cannot list holds up no block: the funding counts when mined, the pass says why', async () => {
    node.mode = 'garbledMempool';
    const order = buildOrder({
      label: 'garbled mempool order',
      createdAt: Date.now(),
      refundableAtBlockHeight: 800_000,
    }).record;
    const fresh = await openFreshStore('sqlite');
    try {
      await seedStore(fresh.store, { configuration: configuration({ markets: ['BTC_LBTC'] }), orders: [order] });
      const { logger, lines } = recordingLogger();
      const backend = new EsploraBackend(`${node.origin}/api`, 'mainnet', patient);
      await failsWith(backend.mempool({ orders: [], fundingOutputs: [] }), 'badAnswer');
      const watcher = new ChainWatcher({
        backend,
        store: fresh.store,
        tickers: ['BTC'],
        confirmations: 1,
        startHeight: honest.chain.tipHeight + 1,
        publish: () => {},
        now: Date.now,
        logger,
      });
      await watcher.catchUp();
      const user = walletKey(hex32('garbled mempool user'));
      const coinbase = honest.chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
      const coin = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
      const funding = buildPayment(user, coin, [{ address: order.payToAddress, amount: order.amount }], 'mainnet');
      honest.chain.submit(funding.toHex());
      await watcher.catchUp();
      assert.equal((await fresh.store.getOrder(order.id))?.state, 'WaitingForFundingTx', 'not seen: no listing');
      honest.chain.mine();
      await watcher.catchUp();
      assert.equal((await fresh.store.getOrder(order.id))?.state, 'Funded');
      assert.ok(lines.some((line) => line.msg === 'mempool not read: blocks only this pass'));
    } finally {
      node.mode = 'honest';
      await fresh.dispose();
    }
  });

  test('an answer that is not JSON, or not a block hash, is a bad answer', async () => {
    node.mode = 'notJson';
    await failsWith(esplora.tip(), 'badAnswer');
    await failsWith(core.tip(), 'badAnswer');
  });

  test('null, "0x", a number or a 10 MB string for any call a backend makes: a bad answer, its message bounded', async () => {
    const watch = { orders: [], fundingOutputs: [] };
    const tip = honest.chain.tipHeight;
    const range = { from: tip, to: tip };
    const calls: { call: string | RegExp; read: () => Promise<unknown> }[] = [
      { call: /\/block-height\/0$/, read: () => esplora.identity() },
      { call: /\/blocks\/tip\/hash$/, read: () => esplora.tip() },
      { call: /\/block\/[0-9a-f]{64}$/, read: () => esplora.tip() },
      { call: /\/block-height\/\d+$/, read: () => esplora.blockAt(tip) },
      { call: /\/block\/[0-9a-f]{64}\/raw$/, read: () => esplora.observations(range, watch) },
      { call: /\/fee-estimates$/, read: () => esplora.feeRate() },
      { call: /\/mempool\/txids$/, read: () => esplora.mempool(watch) },
      { call: 'getblockchaininfo', read: () => core.tip() },
      { call: 'getblockhash', read: () => core.identity() },
      { call: 'getblockhash', read: () => core.blockAt(tip) },
      { call: 'getblock', read: () => core.observations(range, watch) },
      { call: 'estimatesmartfee', read: () => core.feeRate() },
      { call: 'getrawmempool', read: () => core.mempool(watch) },
    ];
    const answers = [null, '0x', 12_345, `0x${'ab'.repeat(5 * 2 ** 20 - 1)}`];
    node.mode = 'wrongAnswer';
    try {
      for (const { call, read } of calls) {
        for (const answer of answers) {
          node.wrongAnswer = { call, answer };
          const error = await failsWith(read(), 'badAnswer');
          assert.ok(error.message.length < 400, `${String(call)}: a message of ${error.message.length} characters`);
        }
      }
    } finally {
      node.mode = 'honest';
    }
  });

  test('a node that is not there is unreachable, named by host only', async () => {
    const gone = new EsploraBackend('http://user:secret@127.0.0.1:1/api/key-in-path?token=abc', 'mainnet', patient);
    const error = await failsWith(gone.tip(), 'unreachable');
    assert.ok(!/secret|key-in-path|token/.test(error.message), error.message);
    assert.match(error.message, /http:\/\/127\.0\.0\.1:1\b/);
  });
});

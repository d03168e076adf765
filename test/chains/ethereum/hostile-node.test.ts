/**
 * The Ethereum backend and `contract deploy` against a node that hangs, answers 200 MB, answers what is not
 * JSON or results that are not what the method returns: each call fails with the node's fault named, and no
 * error (message or logged fields) shows the URL's path or query, where hosted nodes keep their API key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { encodeAbiParameters, encodeEventTopics } from 'viem';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { nodeFaultOf, type NodeFault } from '../../../src/chains/node-faults.js';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { deployFromCli } from '../../../src/cli/contract-deploy.js';
import { SWAP_CONTRACT_ADDRESS } from '../../support/fixtures.js';
import { anvilSkipReason, startAnvil } from '../../support/anvil.js';
import { startHostileNode, type HostileNode } from '../../support/hostile-node.js';

const TIMEOUT_MS = 300;
const API_KEY = 'c0ffee-api-key';

let node: HostileNode;
let rpcUrl: string;
let backend: EthereumBackend;

before(async () => {
  node = await startHostileNode();
  rpcUrl = `${node.origin}/v3/${API_KEY}?token=${API_KEY}`;
  // A loaded machine can take more than TIMEOUT_MS over a first call (a connection opened, code compiled): only the
  // calls that must time out get the short bound, so a slow call never hides the fault a test expects.
  backend = new EthereumBackend({ rpcUrl, swapContractAddress: SWAP_CONTRACT_ADDRESS, timeoutMs: 10_000 });
});
after(() => node?.close());

async function failsWith(call: Promise<unknown>, fault: NodeFault): Promise<unknown> {
  const error = await call.then(
    () => assert.fail(`expected a ${fault} fault`),
    (caught: unknown) => caught,
  );
  assert.equal(nodeFaultOf(error), fault, String(error));
  const logged = JSON.stringify(pino.stdSerializers.err(error as Error));
  assert.ok(!logged.includes(API_KEY), `the logged error shows the key: ${logged}`);
  assert.ok(logged.includes(node.origin), 'the logged error names the node by host');
  return error;
}

describe('the Ethereum backend against a hostile node', () => {
  test('a node that never answers: a timeout within its bound', async () => {
    node.mode = 'hang';
    const hasty = new EthereumBackend({ rpcUrl, swapContractAddress: SWAP_CONTRACT_ADDRESS, timeoutMs: TIMEOUT_MS });
    const started = performance.now();
    await failsWith(hasty.tip(), 'timeout');
    assert.ok(performance.now() - started < TIMEOUT_MS + 1_000);
  });

  test('a node answering 200 MB: refused past the cap', async () => {
    node.mode = 'huge';
    // The backend's 10 s are time enough to read the 12 MiB on a loaded machine: the cap must end the call.
    await failsWith(backend.tip(), 'tooLarge');
  });

  test('an answer that is not JSON, or results of the wrong shape, are bad answers', async () => {
    node.mode = 'notJson';
    await failsWith(backend.tip(), 'badAnswer');
    node.mode = 'objectResults';
    await failsWith(backend.identity(), 'badAnswer');
    await failsWith(backend.tip(), 'badAnswer');
    await failsWith(backend.blockAt(5), 'badAnswer');
  });

  test('null, "0x", a number or a 10 MB string for any call the backend makes: a bad answer, its message bounded', async () => {
    const calls: { method: string; read: () => Promise<unknown>; nullMeans?: unknown }[] = [
      { method: 'eth_chainId', read: () => backend.identity() },
      { method: 'eth_getBlockByNumber', read: () => backend.tip() },
      // `null` for a block by number is the node having none: a reorg, or a height above its tip.
      { method: 'eth_getBlockByNumber', read: () => backend.blockAt(5), nullMeans: undefined },
      { method: 'eth_call', read: () => backend.refundDelay() },
      {
        method: 'eth_getLogs',
        read: () => backend.observations({ from: 1, to: 2 }, { orders: [], fundingOutputs: [] }),
      },
    ];
    const answers = [null, '0x', 12_345, `0x${'ab'.repeat(5 * 2 ** 20 - 1)}`];
    node.mode = 'wrongAnswer';
    try {
      for (const { method, read, ...rest } of calls) {
        for (const answer of answers) {
          node.wrongAnswer = { call: method, answer };
          if (answer === null && 'nullMeans' in rest) {
            assert.equal(await read(), rest.nullMeans);
            continue;
          }
          const error = (await failsWith(read(), 'badAnswer')) as Error;
          assert.match(error.message, new RegExp(`^ethereum ${method} at `), error.message.slice(0, 300));
          assert.ok(error.message.length < 300, `${method}: a message of ${error.message.length} characters`);
        }
      }
    } finally {
      node.mode = 'honest';
    }
  });

  test('a log that does not say where it is (contract, block of the range, transaction, index) is a bad answer', async () => {
    const event = SWAP_CONTRACT_ARTIFACT_ABI.find((item) => item.type === 'event' && item.name === 'OrderRefunded');
    assert.ok(event?.type === 'event');
    const topics = encodeEventTopics({
      abi: [event],
      eventName: 'OrderRefunded',
      args: { orderUUID: `0x${'11'.repeat(16)}`, funder: `0x${'22'.repeat(20)}` },
    });
    const data = encodeAbiParameters(
      event.inputs.filter((input) => !input.indexed),
      [`0x${'33'.repeat(20)}`, 5n, false],
    );
    const hash = `0x${'44'.repeat(32)}`;
    const placed = {
      address: SWAP_CONTRACT_ADDRESS,
      topics,
      data,
      blockNumber: '0x1',
      blockHash: hash,
      transactionHash: hash,
      transactionIndex: '0x0',
      logIndex: '0x0',
      removed: false,
    };
    const read = () => backend.observations({ from: 1, to: 2 }, { orders: [], fundingOutputs: [] });
    node.mode = 'wrongAnswer';
    try {
      node.wrongAnswer = { call: 'eth_getLogs', answer: [placed] };
      assert.deepEqual(await read(), [], 'a placed log of no watched order moves nothing');
      const unplaced = [
        { ...placed, address: undefined },
        { ...placed, blockNumber: '0x9' },
        { ...placed, blockHash: null },
        { ...placed, transactionHash: undefined },
        { ...placed, logIndex: null },
      ];
      for (const log of unplaced) {
        node.wrongAnswer = { call: 'eth_getLogs', answer: [log] };
        const error = (await failsWith(read(), 'badAnswer')) as Error;
        assert.match(error.message, /a log without its contract, block of 1\.\.2, or place/);
      }
    } finally {
      node.mode = 'honest';
    }
  });

  test('an HTTP error status is the node refusing', async () => {
    node.mode = 'honest';
    await failsWith(backend.tip(), 'refused');
  });

  test('contract deploy says what the node did, never viem\'s "Cannot convert [object Object] to a BigInt"', async () => {
    node.mode = 'objectResults';
    const error = await deployFromCli(
      { rpcUrl, refundDelay: 100n, version: 3, privateKey: `0x${'11'.repeat(32)}` },
      () => undefined,
    ).then(
      () => assert.fail('deployed against a broken node'),
      (caught: unknown) => caught as Error,
    );
    assert.equal(error.message, `ethereum eth_chainId at ${node.origin}: not a number (0x and up to 64 hex digits)`);
    node.mode = 'huge';
    const tooLarge = await deployFromCli(
      { rpcUrl, refundDelay: 100n, version: 3, privateKey: `0x${'11'.repeat(32)}` },
      () => undefined,
    ).then(
      () => assert.fail('deployed against a node answering 200 MB'),
      (caught: unknown) => caught as Error,
    );
    assert.ok(!tooLarge.message.includes(API_KEY), tooLarge.message);
    assert.match(tooLarge.message, /^ethereum eth_chainId at http:\/\/127\.0\.0\.1:\d+: /);
  });
});

test(
  'an honest node (Anvil) answers through the bounded transport, credentials and all',
  { skip: anvilSkipReason },
  async () => {
    const anvil = await startAnvil({ chainId: 1337 });
    try {
      const contract = await anvil.deploySwapContract(100n);
      await anvil.mine(3);
      const url = new URL(anvil.rpcUrl);
      url.username = 'user';
      url.password = 'secret';
      const honest = new EthereumBackend({ rpcUrl: url.toString(), swapContractAddress: contract });
      assert.deepEqual(await honest.identity(), { chain: 'ethereum', network: 'simnet', chainId: 1337 });
      const tip = await honest.tip();
      assert.equal(BigInt(tip.height), await anvil.blockNumber());
      assert.deepEqual(await honest.blockAt(tip.height), tip);
      assert.equal(await honest.blockAt(tip.height + 1_000), undefined);
      assert.equal(await honest.refundDelay(), 100);
      const watch = { orders: [], fundingOutputs: [] };
      assert.deepEqual(await honest.observations({ from: 0, to: tip.height }, watch), []);
    } finally {
      await anvil.stop();
    }
  },
);

/**
 * The Ethereum backend and `contract deploy` against a node that hangs, answers 200 MB, answers what is not
 * JSON or results that are not what the method returns: each call fails with the node's fault named, and no
 * error (message or logged fields) shows the URL's path or query, where hosted nodes keep their API key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { nodeFaultOf, type NodeFault } from '../../../src/chains/node-faults.js';
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
    assert.equal(error.message, `the Ethereum node at ${node.origin} answered something that is not a JSON-RPC result`);
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

/**
 * The service's reading of a swap contract's version, the backend's and the provider daemon's alike, comes from
 * the same code verification as the client library's: genuine v2 and v3 are told apart, and anything else at the
 * address (no code, a look-alike whose dispatcher carries v3's selectors, a proxy in front of a genuine v3, a node
 * answering what is not code) is a named refusal, never a version and never a TypeError. `serve` starting on such
 * an address refuses it and writes nothing to the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, http, type Address, type Chain, type PublicClient, type Transport } from 'viem';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { NotSwapContract } from '../../../src/chains/ethereum/swap-contract-version.js';
import { NodeCallFailed } from '../../../src/chains/node-faults.js';
import { connectEthereum } from '../../../src/engine/chain-following/ethereum-watch.js';
import { contractVersionReader } from '../../../src/provider/ethereum/sign-cooperative-refunds.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';
import { swapChainConfiguration } from '../../support/chains/ethereum/swap-chain.js';
import { seedStore } from '../../support/fixtures.js';
import { deployHostileContract } from '../../support/hostile-contracts.js';
import { HttpRelay } from '../../support/http-relay.js';
import { openFreshStore, skipReason, STORE_KINDS } from '../../support/stores.js';

/** `PUSH4 refundCooperative's selector`: what the version was once told by, anywhere in the code. */
const V3_SELECTOR_PUSH = '63d11f56ec';

function notSwapContract(mismatch: string, message: RegExp) {
  return (error: unknown) =>
    error instanceof NotSwapContract && error.mismatch === mismatch && message.test(error.message);
}

describe("the service's swap contract version, from its code", { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let v2: Address;
  let v3: Address;
  let lookAlike: Address;
  let proxy: Address;
  let relay: HttpRelay;
  let answer: unknown;

  const backendAt = (address: string, rpcUrl = node.rpcUrl) =>
    new EthereumBackend({ rpcUrl, swapContractAddress: address });
  const versionAt = async (address: string, rpcUrl?: string) => {
    const backend = backendAt(address, rpcUrl);
    try {
      return await backend.swapContractVersion();
    } finally {
      await backend.close();
    }
  };
  const readerAt = (address: Address, publicClient: PublicClient<Transport, Chain> = node.publicClient) =>
    contractVersionReader({ publicClient, wallet: node.wallet(), contract: address });

  before(async () => {
    node = await startAnvil({ chainId: 1337 });
    v2 = await node.deploySwapContract(20n, undefined, 2);
    v3 = await node.deploySwapContract(30n, node.accounts[1], 3);
    lookAlike = await deployHostileContract(node, 'LookAlikeSwapContract', [20n, node.accounts[4]!.address]);
    proxy = await deployHostileContract(node, 'DelegatingProxy', [v3]);
    relay = new HttpRelay(new URL(node.rpcUrl));
    relay.rewrite = (_path, body) => (answer === undefined ? undefined : { ...(body as object), result: answer });
    await relay.start();
  });
  after(async () => {
    await relay?.stop();
    await node?.stop();
  });

  test('tells genuine v2 from v3, in the backend and in the provider daemon', async () => {
    assert.equal(await versionAt(v2), 2);
    assert.equal(await versionAt(v3), 3);
    assert.equal(await readerAt(v2)(), 2);
    assert.equal(await readerAt(v3)(), 3);
  });

  test("refuses a look-alike whose code carries v3's selector, a proxy in front of v3, and an account without code", async () => {
    const code = await node.publicClient.getCode({ address: lookAlike });
    assert.ok(code?.includes(V3_SELECTOR_PUSH), 'the look-alike has what the version was once told by');
    const refusals: [Address, string, RegExp][] = [
      [lookAlike, 'OtherCode', new RegExp(`^${lookAlike} is not lnswap's swap contract: `, 'i')],
      [proxy, 'OtherCode', new RegExp(`^${proxy} is not lnswap's swap contract: `, 'i')],
      [node.accounts[3]!.address, 'NoCode', new RegExp(`^no contract at ${node.accounts[3]!.address}$`, 'i')],
    ];
    for (const [address, mismatch, message] of refusals) {
      await assert.rejects(versionAt(address), notSwapContract(mismatch, message));
      await assert.rejects(readerAt(address)(), notSwapContract(mismatch, message));
    }
  });

  test('a node answering what is not code: a bad answer of the node, never a TypeError; the reader asks again', async () => {
    const lying = createPublicClient({ chain: node.chain, transport: http(relay.url) }) as PublicClient<
      Transport,
      Chain
    >;
    const reader = readerAt(v3, lying);
    try {
      for (const lie of [null, 42, {}, [], '0xzz', 'code']) {
        answer = lie;
        await assert.rejects(
          versionAt(v3, relay.url),
          (error: unknown) => error instanceof NodeCallFailed && /ethereum eth_getCode/.test(error.message),
          JSON.stringify(lie),
        );
        await assert.rejects(reader(), notSwapContract('UnreadableCode', /not lnswap's swap contract/));
      }
    } finally {
      answer = undefined;
    }
    assert.equal(await reader(), 3, 'a refusal is not remembered: the honest answer is read next time');
  });

  for (const kind of STORE_KINDS) {
    test(
      `${kind}: serve starting on a look-alike refuses it and writes nothing`,
      { skip: skipReason(kind) },
      async () => {
        const fresh = await openFreshStore(kind);
        try {
          await seedStore(fresh.store, {
            configuration: swapChainConfiguration({ contractAddress: v2 }, 'SETH_LSBTC', 1),
          });
          const before = (await fresh.store.getConfiguration()).chains;
          for (const address of [lookAlike, proxy]) {
            await assert.rejects(
              connectEthereum(fresh.store, { rpcUrl: node.rpcUrl, swapContractAddress: address }, backendAt),
              notSwapContract('OtherCode', /is not lnswap's swap contract/),
            );
          }
          assert.deepEqual((await fresh.store.getConfiguration()).chains, before);
        } finally {
          await fresh.dispose();
        }
      },
    );
  }
});

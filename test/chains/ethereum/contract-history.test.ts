import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { connectEthereum } from '../../../src/engine/chain-following/ethereum-watch.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';
import { configuration } from '../../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../../support/stores.js';

const MARKET = 'SETH_LSBTC';

/** What `serve --ethereum-rpc URL [--swap-contract ADDRESS]` does to the history when it starts. */
describe('serve records the contract it is given in the history', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let v2: Hex;
  let v3: Hex;
  let fresh: FreshStore;
  const openBackend = (address: string) => new EthereumBackend({ rpcUrl: node.rpcUrl, swapContractAddress: address });
  const connect = async (swapContractAddress: string | undefined, now: number) => {
    const options = { rpcUrl: node.rpcUrl, ...(swapContractAddress === undefined ? {} : { swapContractAddress }) };
    await connectEthereum(fresh.store, options, openBackend, () => now);
    const view = (await fresh.store.getConfiguration()).chains.ethereum!;
    return { current: view.swapContractAddress.toLowerCase(), contracts: view.contracts };
  };

  before(async () => {
    node = await startAnvil({ chainId: 1337 });
    v2 = await node.deploySwapContract(20n, undefined, 2);
    v3 = await node.deploySwapContract(20n, undefined, 3);
    fresh = await openFreshStore('sqlite');
  });
  after(async () => {
    await fresh?.dispose();
    await node?.stop();
  });

  test('a snapshot naming a v3 contract is corrected to version 3; --swap-contract switches; a restart changes nothing', async () => {
    // The snapshot format names the contract alone: the import records it as version 2.
    const imported = configuration({
      markets: [MARKET],
      chains: { ethereum: { blockHeight: 1, swapContractAddress: v3 } },
      providers: [],
    });
    await fresh.store.importAtomically((session) => session.writeConfiguration(imported));
    assert.deepEqual((await fresh.store.getConfiguration()).chains.ethereum?.contracts, [
      { address: v3.toLowerCase(), version: 2, since: 0 },
    ]);
    assert.deepEqual(await connect(undefined, 1_000), {
      current: v3.toLowerCase(),
      contracts: [{ address: v3.toLowerCase(), version: 3, since: 0 }],
    });

    const switched = {
      current: v2.toLowerCase(),
      contracts: [
        { address: v3.toLowerCase(), version: 3, since: 0 },
        { address: v2.toLowerCase(), version: 2, since: 2_000 },
      ],
    };
    assert.deepEqual(await connect(v2, 2_000), switched);
    assert.deepEqual(await connect(v2, 3_000), switched, 'the current contract again: nothing changes');
    assert.deepEqual(await connect(undefined, 4_000), switched);

    await assert.rejects(connect(`0x${'55'.repeat(20)}`, 5_000), /no contract at 0x5{40}/);
    assert.deepEqual(await connect(undefined, 6_000), switched, 'a refused address writes nothing');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, isAddress } from 'viem';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { deployHostileContract } from '../support/hostile-contracts.js';
import { runCli, runInProcess, type CliResult } from '../support/cli/cli-process.js';
import { swapChainConfiguration } from '../support/chains/ethereum/swap-chain.js';
import { seedStore } from '../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';

function lastLine(result: CliResult): string {
  return result.stdout.trimEnd().split('\n').at(-1) ?? '';
}

describe('lnswap contract use and deploy --version', () => {
  test('refuse a missing or malformed address, a version that does not exist and options of other actions', async () => {
    const rpc = ['--ethereum-rpc', 'http://127.0.0.1:1'];
    const address = '0x' + '12'.repeat(20);
    const cases: [string[], RegExp][] = [
      [['contract', 'use', ...rpc], /missing ADDRESS/],
      [['contract', 'use', '0x1234', ...rpc], /"0x1234" is not an Ethereum address/],
      [['contract', 'use', address], /missing --ethereum-rpc URL/],
      [['contract', 'use', address, address, ...rpc], /unexpected argument/],
      [['contract', 'use', address, '--version', '3', ...rpc], /--version is for deploy/],
      [['contract', 'use', address, '--refund-delay', '9', ...rpc], /--refund-delay is for deploy/],
      [['contract', 'use', address, '--all', ...rpc], /are for admin-refund/],
      [['contract', 'deploy', '--version', '1', ...rpc], /--version must be one of 2, 3, not "1"/],
      [['contract', 'deploy', '--version', '3.0', ...rpc], /--version must be one of 2, 3, not "3.0"/],
    ];
    const results = await Promise.all(
      cases.map(([args]) => runInProcess(args, { env: { DEPLOYER_PRIVATE_KEY: '11'.repeat(32) } })),
    );
    for (const [index, result] of results.entries()) {
      const [args, pattern] = cases[index]!;
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.equal(result.stdout, '');
    }
  });

  describe('against Anvil', { skip: anvilSkipReason }, () => {
    let node: AnvilNode;
    let v2: string;
    let v3: string;
    let lookAlike: string;
    before(async () => {
      node = await startAnvil({ chainId: 1337 });
      const key = bytesToHex(node.accounts[1]!.getHdKey().privateKey!);
      // The second explicitly, the third by default; the operator's own process for one of them.
      const second = await runCli(['contract', 'deploy', '--ethereum-rpc', node.rpcUrl, '--version', '2'], {
        env: { DEPLOYER_PRIVATE_KEY: key },
      });
      const third = await runInProcess(['contract', 'deploy', '--ethereum-rpc', node.rpcUrl], {
        env: { DEPLOYER_PRIVATE_KEY: key },
      });
      for (const result of [second, third]) {
        assert.equal(result.code, 0, result.stderr);
        assert.ok(isAddress(lastLine(result)), result.stdout);
      }
      assert.match(second.stdout, /deploying the swap contract version 2 /);
      assert.match(third.stdout, /deploying the swap contract version 3 /);
      [v2, v3] = [lastLine(second), lastLine(third)];
      lookAlike = await deployHostileContract(node, 'LookAlikeSwapContract', [20n, node.accounts[4]!.address]);
    });
    after(() => node?.stop());

    for (const kind of STORE_KINDS) {
      test(
        `${kind}: switches new quotes to the v3 contract, keeping v2 in the history`,
        { skip: skipReason(kind) },
        async () => {
          const fresh: FreshStore = await openFreshStore(kind);
          try {
            await seedStore(fresh.store, {
              configuration: swapChainConfiguration({ contractAddress: v2 }, 'SETH_LSBTC', 1),
            });
            const use = (address: string) =>
              runInProcess(['contract', 'use', address, '--db', fresh.url], { env: { ETHEREUM_RPC_URL: node.rpcUrl } });

            const nowhere = await use('0x' + '77'.repeat(20));
            assert.equal(nowhere.code, 1);
            assert.match(nowhere.stderr, /^lnswap contract: no contract at 0x7{40}\n$/);
            // The swap functions and events, and v3's selectors in its code: still not lnswap's contract.
            const impostor = await use(lookAlike);
            assert.equal(impostor.code, 1);
            assert.match(
              impostor.stderr,
              new RegExp(`^lnswap contract: ${lookAlike} is not lnswap's swap contract: [^\n]+\n$`, 'i'),
            );
            assert.equal(impostor.stdout, '');

            const switched = await use(v3);
            assert.equal(switched.code, 0, switched.stderr);
            const lines = switched.stdout.trimEnd().split('\n');
            assert.equal(lines.length, 2, switched.stdout);
            assert.equal(lines[0], `${v2.toLowerCase()} version 2 since before the history`);
            assert.match(
              lines[1]!,
              new RegExp(`^${v3.toLowerCase()} version 3 since \\d{4}-\\S+Z \\(current: new quotes\\)$`),
            );

            const exported = await runInProcess(['export', '--db', fresh.url]);
            assert.equal(exported.code, 0, exported.stderr);
            const snapshot = JSON.parse(exported.stdout) as { chains: { ethereum: Record<string, unknown> } };
            assert.deepEqual(snapshot.chains.ethereum, { blockHeight: 1, swapContractAddress: v3 });
          } finally {
            await fresh.dispose();
          }
        },
      );
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, isAddress, type Address } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI as ABI } from '../../src/chains/ethereum/swap-contract-artifact.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { runCli, runInProcess, type CliResult } from '../support/cli/cli-process.js';

function lastLine(result: CliResult): string {
  return result.stdout.trimEnd().split('\n').at(-1) ?? '';
}

describe('lnswap contract deploy', () => {
  test('refuses a missing or malformed key, a key flag, a bad delay and a missing node, without echoing the key', async () => {
    const malformed = 'ab'.repeat(31) + 'zz';
    const deploy = ['contract', 'deploy', '--ethereum-rpc', 'http://127.0.0.1:1'];
    const cases: [string[], Record<string, string>, RegExp][] = [
      [deploy, {}, /the deployer key is missing: set DEPLOYER_PRIVATE_KEY/],
      [deploy, { DEPLOYER_PRIVATE_KEY: malformed }, /DEPLOYER_PRIVATE_KEY must be 64 hex digits/],
      [deploy, { DEPLOYER_PRIVATE_KEY: '0'.repeat(64) }, /DEPLOYER_PRIVATE_KEY is not a valid secp256k1 private key/],
      [[...deploy, '--private-key', malformed], {}, /Unknown option '--private-key'/],
      [[...deploy, '--refund-delay', '0'], {}, /--refund-delay must be a whole number of blocks/],
      [['contract', 'deploy'], {}, /missing --ethereum-rpc URL/],
      [
        ['contract', 'deploy', '--ethereum-rpc', 'ftp://node'],
        {},
        /--ethereum-rpc must be an http:\/\/ or https:\/\/ URL/,
      ],
      [['contract', 'launch'], {}, /unknown action "launch"/],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runInProcess(args, { env: env })));
    for (const [index, result] of results.entries()) {
      const [args, , pattern] = cases[index]!;
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.match(result.stderr, /^lnswap contract: .* \(run lnswap contract --help for usage\)\n$/);
      assert.equal(result.stdout, '');
      assert.ok(!result.stderr.includes(malformed), 'the key was echoed');
    }
  });

  test('is listed in lnswap --help', async () => {
    const help = await runInProcess(['--help']);
    assert.match(help.stdout, /^ {2}contract +deploy the Ethereum swap contract, or refund an order as its owner$/m);
  });

  describe('against Anvil', { skip: anvilSkipReason }, () => {
    let node: AnvilNode;
    before(async () => {
      node = await startAnvil({ chainId: 1337 });
    });
    after(() => node?.stop());

    async function deployed(address: Address) {
      const read = <T extends 'owner' | 'refundDelay'>(functionName: T) =>
        node.publicClient.readContract({ address, abi: ABI, functionName });
      // Only the second version has per-funder slots: a fresh one reads back empty.
      const [, , , amount, , state] = await node.publicClient.readContract({
        address,
        abi: ABI,
        functionName: 'slots',
        args: [`0x${'11'.repeat(16)}`, node.accounts[4]!.address],
      });
      assert.deepEqual({ amount, state }, { amount: 0n, state: 0 });
      return { owner: await read('owner'), refundDelay: await read('refundDelay') };
    }

    test('deploys from the key in DEPLOYER_PRIVATE_KEY and prints the address alone on the last line', async () => {
      // Two deployers, so the two deployments running at once never compete for one nonce.
      const [first, second] = [node.accounts[1]!, node.accounts[3]!];
      const [firstKey, secondKey] = [first, second].map((account) =>
        bytesToHex(account.getHdKey().privateKey!).slice(2),
      );
      // The first as an operator runs it, in its own process.
      const [withoutPrefix, withPrefix] = await Promise.all([
        runCli(['contract', 'deploy', '--ethereum-rpc', node.rpcUrl, '--refund-delay', '77'], {
          env: { DEPLOYER_PRIVATE_KEY: firstKey! },
        }),
        runInProcess(['contract', 'deploy'], {
          env: { ETHEREUM_RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: `0x${secondKey!.toUpperCase()}` },
        }),
      ]);
      for (const [result, key] of [
        [withoutPrefix, firstKey!],
        [withPrefix, secondKey!],
      ] as const) {
        assert.equal(result.code, 0, result.stderr);
        assert.ok(isAddress(lastLine(result)), `last line: ${lastLine(result)}`);
        const output = (result.stdout + result.stderr).toLowerCase();
        assert.ok(!output.includes(key.toLowerCase()), 'the key appeared in the output');
      }
      assert.deepEqual(await deployed(lastLine(withoutPrefix) as Address), { owner: first.address, refundDelay: 77n });
      assert.deepEqual(await deployed(lastLine(withPrefix) as Address), { owner: second.address, refundDelay: 5760n });
    });

    test('a node that cannot be reached fails with exit code 1 and one line', async () => {
      const key = bytesToHex(node.accounts[2]!.getHdKey().privateKey!).slice(2);
      const result = await runInProcess(['contract', 'deploy', '--ethereum-rpc', 'http://127.0.0.1:1'], {
        env: { DEPLOYER_PRIVATE_KEY: key },
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^lnswap contract: [^\n]+\n$/);
      assert.ok(!result.stderr.includes(key));
    });
  });
});

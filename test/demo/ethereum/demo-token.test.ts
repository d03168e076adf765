import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BaseError, decodeErrorResult, type Account, type Address, type Hex } from 'viem';
import { DEMO_TOKEN_ARTIFACT_ABI as ABI } from '../../../src/demo/ethereum/demo-token-artifact.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';

async function assertReverts(attempt: Promise<unknown>, errorName: string): Promise<void> {
  const error = await attempt.then(
    () => assert.fail(`expected the token to revert with ${errorName}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof BaseError, String(error));
  const withData = error.walk((cause) => typeof (cause as { data?: unknown }).data === 'string');
  const data = (withData as { data?: Hex } | null)?.data;
  assert.ok(data !== undefined, `no revert data in: ${error.shortMessage}`);
  assert.equal(decodeErrorResult({ abi: ABI, data }).errorName, errorName);
}

describe('DemoToken on Anvil', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let token: Address;
  let minter: Account;
  let holder: Account;
  let spender: Account;

  before(async () => {
    node = await startAnvil();
    [minter, holder, spender] = node.accounts as readonly Account[] as [Account, Account, Account];
    token = await node.deployDemoToken({ name: 'Demo USD', symbol: 'SUSDC', decimals: 6, minter });
  });
  after(() => node?.stop());

  const read = <T>(functionName: 'name' | 'symbol' | 'decimals' | 'totalSupply'): Promise<T> =>
    node.publicClient.readContract({ address: token, abi: ABI, functionName }) as Promise<T>;

  test('carries the name, symbol and decimals given at deployment', async () => {
    assert.equal(await read<string>('name'), 'Demo USD');
    assert.equal(await read<string>('symbol'), 'SUSDC');
    assert.equal(await read<number>('decimals'), 6);
  });

  test('the deployer mints; anyone else is refused', async () => {
    const supplyBefore = await read<bigint>('totalSupply');
    await node.mintDemoToken(token, holder.address, 5_000_000n, minter);
    assert.equal(await node.tokenBalance(token, holder.address), 5_000_000n);
    assert.equal(await read<bigint>('totalSupply'), supplyBefore + 5_000_000n);
    await assertReverts(node.mintDemoToken(token, spender.address, 1n, spender), 'OnlyMinter');
    assert.equal(await node.tokenBalance(token, spender.address), 0n);
  });

  test('transferFrom takes at most the approved amount, and only what the holder has', async () => {
    await node.mintDemoToken(token, holder.address, 1_000n, minter);
    const holderBefore = await node.tokenBalance(token, holder.address);
    await node.approveToken(token, holder, spender.address, 600n);
    const transferFrom = (amount: bigint) =>
      node.wallet(spender).writeContract({
        address: token,
        abi: ABI,
        functionName: 'transferFrom',
        args: [holder.address, spender.address, amount],
      });
    await assertReverts(transferFrom(601n), 'InsufficientAllowance');
    await node.publicClient.waitForTransactionReceipt({ hash: await transferFrom(600n) });
    assert.equal(await node.tokenBalance(token, spender.address), 600n);
    assert.equal(await node.tokenBalance(token, holder.address), holderBefore - 600n);
    await assertReverts(transferFrom(1n), 'InsufficientAllowance');
    await node.approveToken(token, holder, spender.address, holderBefore);
    await assertReverts(transferFrom(holderBefore), 'InsufficientBalance');
  });
});

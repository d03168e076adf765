/**
 * `verifySwapContract` on a real chain: genuine deployments of v2 and v3 (any owner, any refund delay) are known by
 * their code, and every contract an attacker can put at the address a service names is refused: none at all, a
 * look-alike with the swap functions that pays the attacker, a proxy in front of a genuine contract, a genuine
 * contract's code with one byte changed, a delay above the wallet's bound, and a node answering what is not code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, getAddress, http, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { UnsafeFundingDetails, verifySwapContract } from '../../src/client/index.js';
import { encodeFundCalldata } from '../../src/domain/ethereum.js';
import { SWAP_CONTRACT_RUNTIME_TEMPLATES } from '../../src/domain/swap-contract-runtime-code.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { deployHostileContract } from '../support/hostile-contracts.js';
import { HttpRelay } from '../support/http-relay.js';

const REFUND_DELAY_ABI = parseAbi(['function refundDelay() view returns (uint256)']);
const ORDER_ID = '4f3c1a2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const PAYMENT_HASH = 'ab'.repeat(32);

function refusedFor(fault: string, reason?: RegExp) {
  return (error: unknown) =>
    error instanceof UnsafeFundingDetails &&
    error.fault === fault &&
    (reason === undefined || reason.test(error.message));
}

describe('verifySwapContract on Anvil', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let client: PublicClient;
  let v2: Address;
  let v3: Address;
  let v3OtherOwner: Address;

  before(async () => {
    node = await startAnvil();
    client = node.publicClient as PublicClient;
    v2 = await node.deploySwapContract(10n, node.accounts[0], 2);
    v3 = await node.deploySwapContract(5760n, node.accounts[0], 3);
    v3OtherOwner = await node.deploySwapContract(100_000n, node.accounts[2], 3);
  });
  after(() => node?.stop());

  /** A contract whose runtime code is exactly `code`, deployed as any account can. */
  function deployRuntimeCode(code: Hex): Promise<Address> {
    return deployHostileContract(node, 'RuntimeCodeDeployer', [code]);
  }

  test("accepts genuine v2 and v3 deployments of any owner, reading each one's refund delay", async () => {
    assert.deepEqual(await verifySwapContract({ client, address: v2 }), { version: 2, refundDelayBlocks: 10n });
    assert.deepEqual(await verifySwapContract({ client, address: v3 }), { version: 3, refundDelayBlocks: 5760n });
    for (const address of [v3OtherOwner, v3OtherOwner.toLowerCase(), getAddress(v3OtherOwner)]) {
      assert.deepEqual(await verifySwapContract({ client, address }), { version: 3, refundDelayBlocks: 100_000n });
    }
  });

  test('accepts a delay up to maxRefundDelayBlocks and refuses one block more', async () => {
    const bounded = { client, address: v3 };
    assert.deepEqual(await verifySwapContract({ ...bounded, maxRefundDelayBlocks: 5760n }), {
      version: 3,
      refundDelayBlocks: 5760n,
    });
    await assert.rejects(
      verifySwapContract({ ...bounded, maxRefundDelayBlocks: 5759n }),
      refusedFor('RefundDelayTooLong', /5760 blocks, more than 5759/),
    );
  });

  test('refuses an account without code and an address that is none', async () => {
    for (const address of [node.accounts[3]!.address, `0x${'77'.repeat(20)}`]) {
      await assert.rejects(verifySwapContract({ client, address }), refusedFor('NotSwapContract', /no code/));
    }
    await assert.rejects(verifySwapContract({ client, address: '0x1234' }), refusedFor('NotSwapContract'));
  });

  test('refuses a look-alike with the swap functions, whose fund pays the attacker', async () => {
    const attacker = `0x${'a7'.repeat(20)}` as Address;
    const lookAlike = await deployHostileContract(node, 'LookAlikeSwapContract', [5760n, attacker]);
    // What a wallet reading the contract through calls would see: the genuine answers.
    assert.equal(
      await client.readContract({ address: lookAlike, abi: REFUND_DELAY_ABI, functionName: 'refundDelay' }),
      5760n,
    );
    await assert.rejects(verifySwapContract({ client, address: lookAlike }), refusedFor('NotSwapContract'));
    // Why: a funding of it is the attacker's at once.
    const before = await client.getBalance({ address: attacker });
    const hash = await node.wallet(node.accounts[1]).sendTransaction({
      to: lookAlike,
      data: encodeFundCalldata(ORDER_ID, PAYMENT_HASH, node.accounts[2]!.address),
      value: 1_000n,
    });
    assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await client.getBalance({ address: attacker }), before + 1_000n);
  });

  test('refuses a delegating proxy and an EIP-1167 minimal proxy in front of a genuine v3', async () => {
    const proxy = await deployHostileContract(node, 'DelegatingProxy', [v3]);
    // The proxy runs the genuine code: a call reads what the genuine contract answers.
    assert.equal(
      await client.readContract({ address: proxy, abi: REFUND_DELAY_ABI, functionName: 'refundDelay' }),
      5760n,
    );
    const target = v3.slice(2).toLowerCase();
    const minimal = await deployRuntimeCode(`0x363d3d373d3d3d363d73${target}5af43d82803e903d91602b57fd5bf3`);
    assert.equal(
      await client.readContract({ address: minimal, abi: REFUND_DELAY_ABI, functionName: 'refundDelay' }),
      5760n,
    );
    await assert.rejects(verifySwapContract({ client, address: proxy }), refusedFor('NotSwapContract'));
    await assert.rejects(
      verifySwapContract({ client, address: minimal }),
      refusedFor('NotSwapContract', new RegExp(`forwards every call to 0x${target}`)),
    );
  });

  test("refuses a genuine contract's code with one byte changed, and knows the same code deployed otherwise", async () => {
    const genuine = await client.getCode({ address: v3 });
    assert.ok(genuine !== undefined);
    const copy = await deployRuntimeCode(genuine);
    assert.deepEqual(await verifySwapContract({ client, address: copy }), { version: 3, refundDelayBlocks: 5760n });

    const template = SWAP_CONTRACT_RUNTIME_TEMPLATES.find((known) => known.version === 3)!;
    const rooms = [...template.immutables.owner, ...template.immutables.refundDelay];
    const middle = Math.floor((genuine.length - 2) / 4);
    const at = rooms.some((room) => middle >= room.start && middle < room.start + room.length) ? middle + 40 : middle;
    const byte = Number.parseInt(genuine.slice(2 + 2 * at, 4 + 2 * at), 16);
    const changedCode = `${genuine.slice(0, 2 + 2 * at)}${(byte ^ 1).toString(16).padStart(2, '0')}${genuine.slice(4 + 2 * at)}`;
    const changed = await deployRuntimeCode(changedCode as Hex);
    await assert.rejects(
      verifySwapContract({ client, address: changed }),
      refusedFor('NotSwapContract', new RegExp(`at byte ${at}$`)),
    );
  });

  describe('through a node that answers what is not code', () => {
    let relay: HttpRelay;
    let answer: unknown;
    let lyingClient: PublicClient;
    before(async () => {
      relay = new HttpRelay(new URL(node.rpcUrl));
      relay.rewrite = (_path, body) => ({ ...(body as object), result: answer });
      await relay.start();
      lyingClient = createPublicClient({ transport: http(relay.url) });
    });
    after(() => relay?.stop());

    for (const [name, lie] of [
      ['null', null],
      ['a number', 42],
      ['an object', {}],
      ['hex that is no bytes', '0xzz'],
      ['hex without 0x', '6080604052'],
      ['ten megabytes of hex', `0x${'60'.repeat(5_000_000)}`],
    ] as const) {
      test(`${name}: refused, not a TypeError`, async () => {
        answer = lie;
        await assert.rejects(verifySwapContract({ client: lyingClient, address: v3 }), refusedFor('NotSwapContract'));
      });
    }
  });
});

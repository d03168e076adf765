import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../src/chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../../src/domain/order-ids.js';
import type { OrderState } from '../../src/domain/states.js';
import type { RunningService } from '../../src/service.js';
import {
  type Party,
  startSwapChain,
  type SwapChain,
  swapChainConfiguration,
} from '../support/chains/ethereum/swap-chain.js';
import { anvilSkipReason } from '../support/anvil.js';
import { CREATION_CAUSE } from '../support/causes.js';
import { buildOrder, hex32, type BuiltOrder } from '../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { eventually, startOnStore } from '../support/ws/harness.js';
import { runCli, runInProcess, type CliResult } from '../support/cli/cli-process.js';

const REFUND_DELAY = 50;
const CONFIRMATIONS = 2;
const MARKET = 'SETH_LSBTC';
const HASH = /0x[0-9a-f]{64}/g;
const SOME_ORDER = '0b5d2f4e-9a8c-4c71-8f3e-2d6b1a7c9e40';

/** Asserts that no form of the key shows anywhere in what the command wrote. */
function assertKeyNotPrinted(result: CliResult, key: string): void {
  const output = (result.stdout + result.stderr).toLowerCase();
  assert.ok(!output.includes(key.replace(/^0x/, '').toLowerCase()), 'the key appeared in the output');
}

describe('lnswap contract admin-refund', () => {
  test('refuses a missing or malformed key, a bad order id and misplaced options, without echoing the key', async () => {
    const malformed = 'cd'.repeat(31) + 'zz';
    const refund = ['contract', 'admin-refund', SOME_ORDER, '--ethereum-rpc', 'http://127.0.0.1:1'];
    const cases: [string[], Record<string, string>, RegExp][] = [
      [refund, {}, /the owner key is missing: set OWNER_PRIVATE_KEY/],
      [refund, { OWNER_PRIVATE_KEY: malformed }, /OWNER_PRIVATE_KEY must be 64 hex digits/],
      [refund, { OWNER_PRIVATE_KEY: '0'.repeat(64) }, /OWNER_PRIVATE_KEY is not a valid secp256k1 private key/],
      [[...refund, '--private-key', malformed], {}, /Unknown option '--private-key'/],
      [[...refund, '--refund-delay', '9'], {}, /--refund-delay is for deploy/],
      [['contract', 'admin-refund', '--ethereum-rpc', 'http://127.0.0.1:1'], {}, /missing ORDER_ID/],
      [
        ['contract', 'admin-refund', 'not-an-id', '--ethereum-rpc', 'http://127.0.0.1:1'],
        { OWNER_PRIVATE_KEY: 'ab'.repeat(32) },
        /"not-an-id" is not an order id/,
      ],
      [['contract', 'admin-refund', SOME_ORDER], {}, /missing --ethereum-rpc URL/],
      [
        ['contract', 'deploy', '--ethereum-rpc', 'http://127.0.0.1:1', '--force'],
        {},
        /--db and --force are for admin-refund/,
      ],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runInProcess(args, { env })));
    for (const [index, result] of results.entries()) {
      const [args, , pattern] = cases[index]!;
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.match(result.stderr, /^lnswap contract: .* \(run lnswap contract --help for usage\)\n$/);
      assert.equal(result.stdout, '');
      assertKeyNotPrinted(result, malformed);
    }
  });

  test('is described in lnswap contract --help', async () => {
    const help = await runCli(['contract', '--help']);
    assert.match(help.stdout, /lnswap contract admin-refund ORDER_ID --ethereum-rpc URL \[--db URL\] \[--force\]/);
    assert.match(help.stdout, /OWNER_PRIVATE_KEY/);
  });

  describe('against Anvil, with the watcher', { skip: anvilSkipReason }, () => {
    let chain: SwapChain;
    let fresh: FreshStore;
    let service: RunningService;
    let ownerKey: string;

    before(async () => {
      chain = await startSwapChain({ refundDelay: REFUND_DELAY });
      ownerKey = bytesToHex(chain.node.accounts[0]!.getHdKey().privateKey!);
      fresh = await openFreshStore('sqlite');
      await fresh.store.importAtomically(async (session) =>
        session.writeConfiguration(swapChainConfiguration(chain, MARKET)),
      );
      service = await startOnStore(fresh.store, fresh.url, {
        ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
      });
    });
    after(async () => {
      await service?.close();
      await fresh?.dispose();
      await chain?.close();
    });

    async function fundedOrder(label: string, slots: [Party, bigint][]): Promise<BuiltOrder> {
      const amount = slots.reduce((sum, [, value]) => sum + value, 0n);
      const built = buildOrder({ label: `admin refund ${label}`, market: MARKET, amount, createdAt: Date.now() });
      const record = {
        ...built.record,
        payToAddress: chain.contractAddress,
        expiresAt: Date.now() + 10 * 60_000,
        claimAddress: chain.address('provider'),
      };
      await fresh.store.createOrder(record, CREATION_CAUSE);
      for (const [party, value] of slots) await chain.fund(record.id, record.paymentHash, value, party);
      await chain.mine(CONFIRMATIONS);
      await reaches(record.id, 'Funded');
      return { ...built, record };
    }

    async function reaches(orderId: string, state: OrderState): Promise<void> {
      await eventually(async () => (await fresh.store.getOrder(orderId))?.state === state, `${orderId} in ${state}`);
    }

    /** The contract's slot state of `party` under the order: 1 funded, 3 refunded. */
    async function slotState(orderId: string, party: Party): Promise<number> {
      const slot = await chain.node.publicClient.readContract({
        address: chain.contractAddress,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        functionName: 'slots',
        args: [orderIdToBytes16(orderId), chain.account(party).address],
      });
      return slot[5];
    }

    const adminRefundArgs = (orderId: string, ...flags: string[]) => [
      'contract',
      'admin-refund',
      orderId,
      '--ethereum-rpc',
      chain.rpcUrl,
      '--db',
      fresh.url,
      ...flags,
    ];
    const adminRefund = (orderId: string, key: string, ...flags: string[]) =>
      runInProcess(adminRefundArgs(orderId, ...flags), { env: { OWNER_PRIVATE_KEY: key } });

    test("refunds each of a blacklisted order's slots to its funder; the watcher moves the order to Refunded with its cause", async () => {
      const { record } = await fundedOrder('blacklisted', [
        ['user', 600n],
        ['wallet2', 400n],
      ]);
      await chain.fund(record.id, hex32('not this payment'), 5n, 'attacker');
      assert.equal(
        await service.transitions.apply({
          orderId: record.id,
          from: 'Funded',
          to: 'AddressBlacklistedWaitingForRefundTx',
          at: Date.now(),
          cause: { source: 'request', reason: 'paymentFailedAddressBlacklisted' },
        }),
        true,
      );
      const before = { user: await chain.balance('user'), wallet2: await chain.balance('wallet2') };

      // The refund an operator runs, in its own process.
      const result = await runCli(adminRefundArgs(record.id), { env: { OWNER_PRIVATE_KEY: ownerKey } });
      assert.equal(result.code, 0, result.stderr);
      assertKeyNotPrinted(result, ownerKey);
      const hashes = result.stdout.match(HASH) ?? [];
      assert.equal(hashes.length, 2, result.stdout);
      assert.equal((await chain.balance('user')) - before.user, 600n, 'the user got its slot back, paying no gas');
      assert.equal((await chain.balance('wallet2')) - before.wallet2, 400n);
      assert.equal(await slotState(record.id, 'attacker'), 1, 'the foreign slot is left to its funder');

      await chain.mine(CONFIRMATIONS);
      await reaches(record.id, 'Refunded');
      const last = (await fresh.store.getOrderHistory(record.id)).at(-1);
      assert.equal(last?.cause?.reason, 'adminRefundConfirmed');
      assert.ok(hashes.includes(last?.cause?.txId ?? ''), 'the cause names one of the refunds');

      const again = await adminRefund(record.id, ownerKey, '--force');
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^lnswap contract: order [0-9a-f-]+ has no open slot to refund\n$/);
    });

    test('refuses a Funded order without --force, sending nothing; refunds it with --force', async () => {
      const { record } = await fundedOrder('funded', [['user', 700n]]);
      const refused = await adminRefund(record.id, `0x${ownerKey.slice(2).toUpperCase()}`);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /^lnswap contract: order [0-9a-f-]+ is Funded, not AddressBlacklistedWaitingForRefundTx: refusing without --force\n$/,
      );
      assert.equal(refused.stdout, '');
      assertKeyNotPrinted(refused, ownerKey);
      assert.equal(await slotState(record.id, 'user'), 1);

      const forced = await adminRefund(record.id, ownerKey.slice(2), '--force');
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(forced.stdout.match(HASH)?.length, 1);
      assert.equal(await slotState(record.id, 'user'), 3);
      assertKeyNotPrinted(forced, ownerKey);
      await chain.mine(CONFIRMATIONS);
      await reaches(record.id, 'Refunded');
    });

    test("a key that is not the owner's, a node of another network and one that cannot be reached fail with one line, never the key", async () => {
      const { record } = await fundedOrder('wrong key', [['user', 800n]]);
      const attackerKey = bytesToHex(chain.node.accounts[3]!.getHdKey().privateKey!);
      const mainnet = buildOrder({ label: 'admin refund mainnet', market: 'ETH_LBTC', createdAt: Date.now() }).record;
      await fresh.store.createOrder({ ...mainnet, claimAddress: chain.address('provider') }, CREATION_CAUSE);
      // Three refused commands, none of which may send anything: run side by side.
      const [notOwner, wrongChain, unreachable] = await Promise.all([
        adminRefund(record.id, attackerKey, '--force'),
        adminRefund(mainnet.id, ownerKey, '--force'),
        runInProcess(
          ['contract', 'admin-refund', record.id, '--ethereum-rpc', 'http://127.0.0.1:1', '--db', fresh.url, '--force'],
          { env: { OWNER_PRIVATE_KEY: ownerKey } },
        ),
      ]);
      assert.equal(notOwner.code, 1);
      assert.match(notOwner.stderr, /^lnswap contract: OWNER_PRIVATE_KEY's account 0x[0-9a-fA-F]{40} is not the owner/);
      assertKeyNotPrinted(notOwner, attackerKey);
      assert.equal(await slotState(record.id, 'user'), 1);

      assert.equal(wrongChain.code, 1);
      assert.match(
        wrongChain.stderr,
        /^lnswap contract: refusing the Ethereum node: chain id 31337 does not fit the order's mainnet market\n$/,
      );

      assert.equal(unreachable.code, 1);
      assert.match(unreachable.stderr, /^lnswap contract: [^\n]+\n$/);
      assertKeyNotPrinted(unreachable, ownerKey);
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bytesToHex,
  createPublicClient,
  createTestClient,
  encodeFunctionData,
  http,
  keccak256,
  stringToHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
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
const STRANGERS = 200;
/** Above the gas a first funding of a slot takes (about 160,000): 120 such transactions fill a 30-million-gas block. */
const FUNDING_GAS = 250_000n;
/**
 * How often the watcher reads Anvil. Each read is a few HTTP requests; at 20 ms they were most of this file's CPU,
 * and what it waits for (confirmations mined by the test) comes no sooner for reading more often.
 */
const WATCH_POLL_MS = 100;

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
      [
        ['contract', 'deploy', '--ethereum-rpc', 'http://127.0.0.1:1', '--dry-run'],
        {},
        /--funder, --all and --dry-run are for admin-refund/,
      ],
      [[...refund, '--all', '--funder', `0x${'ab'.repeat(20)}`], {}, /--funder and --all exclude each other/],
      [[...refund, '--funder', '0x1234'], {}, /--funder must be an Ethereum address, not "0x1234"/],
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
    const help = await runInProcess(['contract', '--help']);
    assert.match(help.stdout, /lnswap contract admin-refund ORDER_ID --ethereum-rpc URL \[--db URL\] \[--force\]/);
    assert.match(help.stdout, /OWNER_PRIVATE_KEY/);
  });

  describe('against Anvil, with the watcher', { skip: anvilSkipReason }, () => {
    let chain: SwapChain;
    let fresh: FreshStore;
    let service: RunningService;
    let ownerKey: string;
    /** Requests sent together go to Anvil as one JSON-RPC batch: the 200 strangers' in a few HTTP requests. */
    let batched: { publicClient: PublicClient; testClient: ReturnType<typeof createTestClient> };

    before(async () => {
      chain = await startSwapChain({ refundDelay: REFUND_DELAY });
      const transport = http(chain.rpcUrl, { batch: true, retryCount: 0 });
      batched = {
        publicClient: createPublicClient({ chain: chain.node.chain, transport }),
        testClient: createTestClient({ chain: chain.node.chain, transport, mode: 'anvil' }),
      };
      ownerKey = bytesToHex(chain.node.accounts[0]!.getHdKey().privateKey!);
      fresh = await openFreshStore('sqlite');
      await fresh.store.importAtomically(async (session) =>
        session.writeConfiguration(swapChainConfiguration(chain, MARKET)),
      );
      service = await startOnStore(fresh.store, fresh.url, {
        ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: WATCH_POLL_MS, startHeight: 0 },
      });
    });
    after(async () => {
      await service?.close();
      await fresh?.dispose();
      await chain?.close();
    });

    async function fundedOrder(label: string, slots: [Party, bigint][]): Promise<BuiltOrder> {
      // Funded means one slot pays: the order's amount is its largest slot's; the others, a tenth of it or more,
      // are the order's slots too.
      const amount = slots.reduce((largest, [, value]) => (value > largest ? value : largest), 0n);
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

    /** The contract's slot state of `funder` (a party or an address) under the order: 1 funded, 3 refunded. */
    async function slotState(
      orderId: string,
      funder: Party | Address,
      client: PublicClient = chain.node.publicClient,
    ): Promise<number> {
      const address = funder.startsWith('0x') ? (funder as Address) : chain.account(funder as Party).address;
      const slot = await client.readContract({
        address: chain.contractAddress,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        functionName: 'slots',
        args: [orderIdToBytes16(orderId), address],
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

    /**
     * Opens a 1-wei matching slot of the order from each of `count` fresh accounts, in two blocks: each
     * account is given ether and signs its own `fund`, as strangers who read the order's funding details would.
     */
    async function strangersFund(orderId: string, paymentHash: string, count: number): Promise<PrivateKeyAccount[]> {
      const strangers = Array.from({ length: count }, (_, index) =>
        privateKeyToAccount(keccak256(stringToHex(`admin refund stranger ${orderId} ${index}`))),
      );
      const { node } = chain;
      const data = encodeFunctionData({
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        functionName: 'fund',
        args: [orderIdToBytes16(orderId), `0x${paymentHash}`, chain.account('provider').address],
      });
      const baseFee = (await node.publicClient.getBlock()).baseFeePerGas ?? 0n;
      await node.setAutomine(false);
      try {
        await Promise.all(
          strangers.map((stranger) => batched.testClient.setBalance({ address: stranger.address, value: 10n ** 16n })),
        );
        const signed = await Promise.all(
          strangers.map((stranger) =>
            stranger.signTransaction({
              chainId: node.chain.id,
              type: 'eip1559',
              to: chain.contractAddress,
              data,
              value: 1n,
              nonce: 0,
              gas: FUNDING_GAS,
              maxFeePerGas: baseFee * 2n + 1n,
              maxPriorityFeePerGas: 1n,
            }),
          ),
        );
        const hashes: Hex[] = await Promise.all(
          signed.map((transaction) => batched.publicClient.sendRawTransaction({ serializedTransaction: transaction })),
        );
        await node.mine(2);
        const receipts = await Promise.all(hashes.map((hash) => batched.publicClient.getTransactionReceipt({ hash })));
        assert.ok(
          receipts.every((receipt) => receipt.status === 'success'),
          'every stranger opened a slot',
        );
      } finally {
        await node.setAutomine(true);
      }
      return strangers;
    }

    test("200 strangers' 1-wei matching slots: by default only the user's slot is refunded and theirs listed; --dry-run sends nothing; --funder and --all refund theirs", async (context) => {
      const { record } = await fundedOrder('strangers', [['user', 1_000n]]);
      const strangers = await strangersFund(record.id, record.paymentHash, STRANGERS);
      await chain.mine(CONFIRMATIONS);
      await eventually(
        async () =>
          (await fresh.store.listChainObservations('ethereum', [record.id])).filter((o) => o.kind === 'funding')
            .length ===
          STRANGERS + 1,
        'the watcher stored every funding',
      );
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
      const owner = chain.account('owner').address;
      const sent = () => chain.node.publicClient.getTransactionCount({ address: owner, blockTag: 'pending' });
      const skipLine = (stranger: PrivateKeyAccount) =>
        `skip ${stranger.address.toLowerCase()} 1 wei (dust: under a tenth of the order's amount)`;

      const nonceBefore = await sent();
      const dryRun = await adminRefund(record.id, ownerKey, '--dry-run');
      assert.equal(dryRun.code, 0, dryRun.stderr);
      assert.equal(await sent(), nonceBefore, 'a dry run sends nothing');
      assert.equal(dryRun.stdout.match(HASH), null);
      assert.match(dryRun.stdout, /^refund 0x[0-9a-f]{40} 1000 wei \(principal\): gas \d+$/m);
      assert.match(
        dryRun.stdout,
        /^gas: \d+ in 1 transaction\(s\), about \d+ wei \([\d.]+ ETH\) at the current gas price of \d+ wei$/m,
      );
      assert.match(dryRun.stdout, /^dry run: nothing sent$/m);
      assert.equal(await slotState(record.id, 'user'), 1);

      const userBefore = await chain.balance('user');
      const byDefault = await adminRefund(record.id, ownerKey);
      assert.equal(byDefault.code, 0, byDefault.stderr);
      assert.equal(byDefault.stdout.match(HASH)?.length, 1, "one transaction: the user's slot");
      assert.equal(await sent(), nonceBefore + 1);
      assert.equal((await chain.balance('user')) - userBefore, 1_000n);
      assert.equal(await slotState(record.id, 'user'), 3);
      const lines = byDefault.stdout.split('\n');
      for (const stranger of strangers) assert.ok(lines.includes(skipLine(stranger)), `${stranger.address} listed`);
      assert.match(
        byDefault.stdout,
        /^order [0-9a-f-]+ on chain id 31337: refunding 1 of 201 open matching slot\(s\) from 0x/,
      );
      assert.match(byDefault.stdout, /^spent \d+ gas, \d+ wei \([\d.]+ ETH\)$/m);

      // The user's slot is refunded: nothing of the order's own is left, and the default refunds no stranger's.
      const nothingLeft = await adminRefund(record.id, ownerKey, '--force');
      assert.equal(nothingLeft.code, 1);
      assert.match(
        nothingLeft.stderr,
        /has no open slot to refund by default; 200 dust slot\(s\) skipped \(--funder or --all\)\n$/,
      );
      assert.equal(await sent(), nonceBefore + 1);

      const [first, second] = strangers as [PrivateKeyAccount, PrivateKeyAccount];
      const one = await adminRefund(record.id, ownerKey, '--force', '--funder', first.address);
      assert.equal(one.code, 0, one.stderr);
      assert.equal(one.stdout.match(HASH)?.length, 1);
      assert.equal(await slotState(record.id, first.address), 3);
      assert.equal(await slotState(record.id, second.address), 1);
      assert.match(one.stdout, new RegExp(`^refund ${first.address.toLowerCase()} 1 wei \\(dust\\): gas \\d+$`, 'm'));
      assert.ok(one.stdout.split('\n').includes(`skip ${second.address.toLowerCase()} 1 wei (not named by --funder)`));
      assert.equal(await sent(), nonceBefore + 2);

      const unknown = await adminRefund(record.id, ownerKey, '--force', '--funder', first.address);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /--funder 0x[0-9a-f]{40}: no open matching slot of order /);
      assert.equal(await sent(), nonceBefore + 2);

      const all = await adminRefund(record.id, ownerKey, '--force', '--all');
      assert.equal(all.code, 0, all.stderr);
      assert.equal(all.stdout.match(HASH)?.length, STRANGERS - 1, "every stranger's slot left");
      assert.equal(await sent(), nonceBefore + 1 + STRANGERS);
      const states = await Promise.all(
        strangers.map((stranger) => slotState(record.id, stranger.address, batched.publicClient)),
      );
      assert.ok(
        states.every((state) => state === 3),
        "every stranger's slot refunded",
      );
      const spent = (result: CliResult) => result.stdout.match(/^spent .*$/m)?.[0];
      context.diagnostic(`200 dust slots: by default ${spent(byDefault)}; --all then ${spent(all)}`);
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

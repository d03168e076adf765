import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import type { Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../../../src/domain/order-ids.js';
import type { OrderState } from '../../../src/domain/states.js';
import type { RunningService } from '../../../src/service.js';
import { anvilSkipReason } from '../../support/anvil.js';
import { CREATION_CAUSE } from '../../support/causes.js';
import { buildOrder, hex32, type BuiltOrder } from '../../support/fixtures.js';
import { LogInjectingNode } from '../../support/log-injecting-node.js';
import { openFreshStore, skipReason, type FreshStore } from '../../support/stores.js';
import { eventually, startOnStore } from '../../support/ws/harness.js';
import {
  type Party,
  startSwapChain,
  type SwapChain,
  swapChainConfiguration,
} from '../../support/chains/ethereum/swap-chain.js';

const REFUND_DELAY = 20;
const CONFIRMATIONS = 2;
const MARKET = 'SETH_LSBTC';
const AMOUNT = 10n ** 15n;
/**
 * Runtime code of a worthless token an attacker might deploy: `balanceOf` answers a counter, and every other
 * call (`transferFrom`, `transfer`) adds its third word (transferFrom's amount) to the counter and returns
 * nothing, which the contract accepts as success, as it does for USDT. Enough for a `fundToken` slot.
 */
const WORTHLESS_TOKEN_CODE: Hex = `0x${[
  '600035', // the selector: calldata's first word ...
  '60e01c', // ... shifted down to its 4 bytes
  '6370a0823114601a57', // balanceOf: jump to 0x1a
  '6044356000540160005500', // otherwise: counter += third word; stop
  '5b60005460005260206000f3', // 0x1a: return the counter
].join('')}`;
const WORTHLESS_TOKEN: Hex = '0x00000000000000000000000000000000007070ee';

/**
 * The watcher counts only the order's own slots: attackers fund slots under the order's id with other terms, a
 * lying node hands it another contract's logs; the user's money still funds the order and comes back whole.
 */
describe(
  'Ethereum slots on Anvil: the watcher believes only what it checks',
  { skip: skipReason('sqlite') || anvilSkipReason },
  () => {
    let chain: SwapChain;
    let otherContract: Hex;
    let liar: LogInjectingNode;
    let fresh: FreshStore;
    let service: RunningService;
    const logLines: Record<string, unknown>[] = [];

    before(async () => {
      chain = await startSwapChain({ refundDelay: REFUND_DELAY });
      otherContract = await chain.node.deploySwapContract(BigInt(REFUND_DELAY));
      await chain.node.testClient.setCode({ address: WORTHLESS_TOKEN, bytecode: WORTHLESS_TOKEN_CODE });
      liar = new LogInjectingNode(chain.rpcUrl, otherContract);
      const liarUrl = await liar.start();
      fresh = await openFreshStore('sqlite');
      await fresh.store.importAtomically(async (session) =>
        session.writeConfiguration(swapChainConfiguration(chain, MARKET)),
      );
      const logger = pino(
        { level: 'info' },
        { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
      );
      service = await startOnStore(fresh.store, fresh.url, {
        logger,
        ethereum: { rpcUrl: liarUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
      });
    });
    after(async () => {
      await service?.close();
      await fresh?.dispose();
      await liar?.stop();
      await chain?.close();
    });

    async function newOrder(label: string, amount = AMOUNT): Promise<BuiltOrder> {
      const built = buildOrder({ label: `slots ${label}`, market: MARKET, amount, createdAt: Date.now() });
      const record = {
        ...built.record,
        payToAddress: chain.contractAddress,
        expiresAt: Date.now() + 10 * 60_000,
        claimAddress: chain.address('provider'),
      };
      await fresh.store.createOrder(record, CREATION_CAUSE);
      return { ...built, record };
    }

    async function reaches(orderId: string, state: OrderState): Promise<void> {
      await eventually(async () => (await fresh.store.getOrder(orderId))?.state === state, `${orderId} in ${state}`);
    }

    /** Mines the confirmations and waits until the watcher has processed every block up to the tip. */
    async function settle(): Promise<void> {
      await chain.mine(CONFIRMATIONS);
      const tip = await chain.height();
      await eventually(
        async () => ((await fresh.store.getConfiguration()).chains.ethereum?.blockHeight ?? 0) >= tip,
        `the watcher at block ${tip}`,
      );
    }

    async function apiOrder(orderId: string, path = ''): Promise<Record<string, unknown>> {
      const response = await fetch(`${service.url}/api/orders/${orderId}${path}`);
      assert.equal(response.status, 200);
      return (await response.json()) as Record<string, unknown>;
    }

    /** Wei the transaction paid `party`, net of the gas it cost when `party` sent it. */
    async function received(party: Party, send: () => Promise<Hex>): Promise<bigint> {
      const before = await chain.balance(party);
      const hash = await send();
      const receipt = await chain.node.publicClient.waitForTransactionReceipt({ hash });
      return (await chain.balance(party)) - before + receipt.gasUsed * receipt.effectiveGasPrice;
    }

    const foreignSightings = (orderId: string) =>
      logLines.filter(
        (line) => line.msg === 'foreign slot funded under an order: not counted' && line.orderId === orderId,
      );

    test('the 1-wei first funder gets back only its 1 wei, the user its whole amount', async () => {
      const { record } = await newOrder('one wei');
      await chain.fund(record.id, record.paymentHash, 1n, 'attacker');
      const userFunding = await chain.fund(record.id, record.paymentHash, AMOUNT);
      await settle();
      await reaches(record.id, 'Funded');
      const userFundHeight = Number(
        (await chain.node.publicClient.getTransactionReceipt({ hash: userFunding })).blockNumber,
      );
      const stored = await fresh.store.getOrder(record.id);
      assert.equal(
        stored?.htlc.refundableAtBlockHeight,
        userFundHeight + REFUND_DELAY,
        "the user's slot's refund height",
      );

      await chain.mine((stored?.htlc.refundableAtBlockHeight ?? 0) - (await chain.height()));
      await reaches(record.id, 'WaitingForRefundTx');
      assert.equal(await received('attacker', () => chain.refund(record.id, 'attacker')), 1n);
      await settle();
      assert.equal(
        (await fresh.store.getOrder(record.id))?.state,
        'WaitingForRefundTx',
        "the user's slot is still locked",
      );
      assert.equal((await apiOrder(record.id, '/refund')).refundableBalance, '0.001');

      assert.equal(await received('user', () => chain.refund(record.id, 'user')), AMOUNT);
      await settle();
      await reaches(record.id, 'Refunded');
      assert.equal((await apiOrder(record.id, '/refund')).refundableBalance, '0');
    });

    test("a wrong-hash funding first moves nothing; the user's funding then goes through and counts alone", async () => {
      const { record } = await newOrder('wrong hash first');
      const foreign = await chain.fund(record.id, hex32('another payment'), AMOUNT, 'attacker');
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'WaitingForFundingTx');
      assert.equal((await fresh.store.getOrderHistory(record.id)).length, 1, 'no move in the history');
      assert.deepEqual(
        foreignSightings(record.id).map((line) => [line.txId, line.mismatches]),
        [[foreign, ['paymentHash']]],
      );

      const userFunding = await chain.fund(record.id, record.paymentHash, AMOUNT);
      await settle();
      await reaches(record.id, 'Funded');
      const order = await apiOrder(record.id);
      assert.equal(order.amountPaid, '0.001');
      assert.deepEqual(await apiOrder(record.id, '/transactions'), [{ type: 'FUND', id: userFunding }]);
    });

    test("a wrong-hash funding later moves nothing; the provider still claims the user's slot", async () => {
      const { record, preimage } = await newOrder('wrong hash later');
      const userFunding = await chain.fund(record.id, record.paymentHash, AMOUNT);
      await settle();
      await reaches(record.id, 'Funded');
      await chain.fund(record.id, hex32('yet another payment'), AMOUNT, 'attacker');
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'Funded');
      assert.deepEqual(await apiOrder(record.id, '/transactions'), [{ type: 'FUND', id: userFunding }]);
      assert.equal(foreignSightings(record.id).length, 1);

      assert.equal(await received('provider', () => chain.claim(record.id, preimage, 'user', 'provider')), AMOUNT);
      await settle();
      await reaches(record.id, 'Complete');
      assert.equal((await apiOrder(record.id)).paymentPreimage, preimage);
    });

    test('a slot naming another claimer is foreign', async () => {
      const { record } = await newOrder('wrong claimer');
      const foreign = await chain.fund(record.id, record.paymentHash, AMOUNT, 'attacker', chain.address('attacker'));
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'WaitingForFundingTx');
      assert.deepEqual(
        foreignSightings(record.id).map((line) => [line.txId, line.mismatches]),
        [[foreign, ['claimer']]],
      );
    });

    test('a slot in another asset (a worthless token) is foreign', async () => {
      const { record } = await newOrder('wrong token');
      const foreign = await chain.node.wallet(chain.account('attacker')).writeContract({
        address: chain.contractAddress,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        functionName: 'fundToken',
        args: [
          orderIdToBytes16(record.id),
          `0x${record.paymentHash}`,
          chain.account('provider').address,
          WORTHLESS_TOKEN,
          AMOUNT,
        ],
      });
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'WaitingForFundingTx');
      assert.deepEqual(
        foreignSightings(record.id).map((line) => [line.txId, line.mismatches]),
        [[foreign, ['token']]],
      );
    });

    test("two matching slots of the user's accounts do not add up to Funded; a top-up of the larger one does", async () => {
      const { record } = await newOrder('two accounts', 1000n);
      const first = await chain.fund(record.id, record.paymentHash, 400n);
      await settle();
      await reaches(record.id, 'PartiallyFunded');
      const second = await chain.fund(record.id, record.paymentHash, 600n, 'wallet2');
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'PartiallyFunded', '400 + 600 wei from two slots');
      assert.equal((await apiOrder(record.id)).amountPaid, '0.000000000000001');
      assert.ok(
        (await fresh.store.getOrderHistory(record.id)).every((change) => change.state !== 'Funded'),
        'never Funded',
      );
      const topUp = await chain.fund(record.id, record.paymentHash, 400n, 'wallet2');
      await settle();
      await reaches(record.id, 'Funded');
      assert.deepEqual(await apiOrder(record.id, '/transactions'), [
        { type: 'FUND', id: first },
        { type: 'FUND', id: second },
        { type: 'FUND', id: topUp },
      ]);
    });

    test("a stranger's 1-wei slot opened after the user's: the user's refund by funder, the order's figures unmoved, Refunded after the user's refund", async () => {
      const { record } = await newOrder('one wei later');
      const userFunding = await chain.fund(record.id, record.paymentHash, AMOUNT);
      await settle();
      await reaches(record.id, 'Funded');
      const userRefundHeight =
        Number((await chain.node.publicClient.getTransactionReceipt({ hash: userFunding })).blockNumber) + REFUND_DELAY;
      await chain.mine(3);
      const strangerFunding = await chain.fund(record.id, record.paymentHash, 1n, 'attacker');
      await settle();
      const strangerRefundHeight =
        Number((await chain.node.publicClient.getTransactionReceipt({ hash: strangerFunding })).blockNumber) +
        REFUND_DELAY;
      assert.equal(strangerRefundHeight, userRefundHeight + 6, 'funded 6 blocks after the user');

      const topLevel = await apiOrder(record.id, '/refund');
      assert.equal(topLevel.refundableAtBlockHeight, userRefundHeight, "the stranger's slot moves nothing");
      assert.equal(topLevel.refundableBalance, '0.001');
      assert.deepEqual(await apiOrder(record.id, '/transactions'), [{ type: 'FUND', id: userFunding }]);
      const byUser = await apiOrder(record.id, `/refund?funder=${chain.account('user').address}`);
      assert.equal(byUser.refundableAtBlockHeight, userRefundHeight);
      assert.equal(byUser.refundableBalance, '0.001');
      assert.equal(byUser.blocksRemaining, userRefundHeight - (await chain.height()));
      const byStranger = await apiOrder(record.id, `/refund?funder=${chain.address('attacker')}`);
      assert.equal(byStranger.refundableAtBlockHeight, strangerRefundHeight);
      assert.equal(byStranger.refundableBalance, '0.000000000000000001');

      await chain.mine(userRefundHeight - (await chain.height()));
      await reaches(record.id, 'WaitingForRefundTx');
      assert.equal(await received('user', () => chain.refund(record.id, 'user')), AMOUNT);
      await settle();
      await reaches(record.id, 'Refunded');
      assert.ok((await chain.height()) < strangerRefundHeight, "Refunded before the stranger's slot is refundable");
      assert.equal((await apiOrder(record.id, '/refund')).refundableBalance, '0');
      const strangerAfter = await apiOrder(record.id, `/refund?funder=${chain.address('attacker')}`);
      assert.equal(strangerAfter.refundableBalance, '0.000000000000000001', 'the stranger still sees its own wei');
    });

    test('a log of another contract, slipped in by the node, moves nothing', async () => {
      const { record } = await newOrder('other contract');
      await chain.node.wallet(chain.account('user')).writeContract({
        address: otherContract,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        functionName: 'fund',
        args: [orderIdToBytes16(record.id), `0x${record.paymentHash}`, chain.account('provider').address],
        value: AMOUNT,
      });
      const injectedBefore = liar.injectedLogs;
      await settle();
      await eventually(() => liar.injectedLogs > injectedBefore, 'the node to slip the log in');
      await settle();
      assert.equal((await fresh.store.getOrder(record.id))?.state, 'WaitingForFundingTx');
      assert.deepEqual(await fresh.store.listChainObservations('ethereum', [record.id]), []);
      const dropped = logLines.filter((line) => line.msg === 'node answered logs of other contracts: dropped');
      assert.ok(dropped.some((line) => (line.addresses as string[]).includes(otherContract.toLowerCase())));
    });
  },
);

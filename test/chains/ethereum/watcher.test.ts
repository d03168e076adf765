import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { followOrder, type StateChanged } from '../../../examples/user-client.js';
import type { OrderState } from '../../../src/domain/states.js';
import type { RunningService } from '../../../src/service.js';
import { buildOrder, type BuiltOrder } from '../../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../../support/stores.js';
import { connectClient, eventually, startOnStore, type Client } from '../../support/ws/harness.js';
import { anvilSkipReason } from '../../support/anvil.js';
import { startSwapChain, type SwapChain, swapChainConfiguration } from '../../support/chains/ethereum/swap-chain.js';
import { CREATION_CAUSE } from '../../support/causes.js';

const REFUND_DELAY = 20;
const CONFIRMATIONS = 2;
const MARKET = 'SETH_LSBTC';

async function getJson(baseUrl: string, path: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

for (const kind of STORE_KINDS) {
  describe(`the Ethereum watcher on Anvil, ${kind} store`, { skip: skipReason(kind) || anvilSkipReason }, () => {
    let chain: SwapChain;
    let fresh: FreshStore;
    let service: RunningService;
    let user: Client;

    before(async () => {
      chain = await startSwapChain({ refundDelay: REFUND_DELAY });
      fresh = await openFreshStore(kind);
      await fresh.store.importAtomically(async (session) =>
        session.writeConfiguration(swapChainConfiguration(chain, MARKET)),
      );
      service = await startOnStore(fresh.store, fresh.url, {
        engine: { sweepIntervalMs: 50 },
        ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
      });
      user = await connectClient(service.url, '/user/v1');
    });
    after(async () => {
      user?.close();
      await service?.close();
      await fresh?.dispose();
      await chain?.close();
    });

    async function newOrder(label: string, amount: bigint, expiresInMs = 10 * 60_000): Promise<BuiltOrder> {
      const built = buildOrder({ label: `${kind} ${label}`, market: MARKET, amount, createdAt: Date.now() });
      const record = {
        ...built.record,
        payToAddress: chain.contractAddress,
        expiresAt: Date.now() + expiresInMs,
        claimAddress: chain.address('provider'),
      };
      await fresh.store.createOrder(record, CREATION_CAUSE);
      return { ...built, record };
    }

    async function follow(orderId: string): Promise<StateChanged[]> {
      const changes: StateChanged[] = [];
      await followOrder(user, orderId, (change) => changes.push(change));
      return changes;
    }

    async function reaches(orderId: string, state: OrderState): Promise<void> {
      await eventually(async () => (await fresh.store.getOrder(orderId))?.state === state, `${orderId} in ${state}`);
    }

    async function view(orderId: string) {
      const base = service.url;
      return {
        order: (await getJson(base, `/api/orders/${orderId}`)) as Record<string, unknown>,
        transactions: (await getJson(base, `/api/orders/${orderId}/transactions`)) as unknown[],
      };
    }

    test("a funding is seen, confirmed, and its refund height is the contract event's", async () => {
      const { record } = await newOrder('fund', 10n ** 15n);
      const changes = await follow(record.id);
      const fundTx = await chain.fund(record.id, record.paymentHash, 10n ** 15n);
      // The block that holds the funding, as the node reports it (reading the tip instead races the automined block).
      const fundHeight = Number(
        (await chain.node.publicClient.waitForTransactionReceipt({ hash: fundTx })).blockNumber,
      );
      await reaches(record.id, 'WaitingForFundingTxConfirmation');
      let seen = await view(record.id);
      assert.equal(seen.order.amountPaid, '0.001');
      assert.deepEqual(seen.transactions, [{ type: 'FUND', id: fundTx }]);

      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Funded');
      const stored = await fresh.store.getOrder(record.id);
      assert.equal(stored?.htlc.refundableAtBlockHeight, fundHeight + REFUND_DELAY);
      assert.deepEqual(stored?.transactions, [
        { type: 'FUND', id: fundTx, amount: 10n ** 15n, blockHeight: fundHeight },
      ]);
      await eventually(() => changes.length === 2, 'two stateChanged events');
      assert.deepEqual(changes, [
        { orderId: record.id, state: 'WaitingForFundingTxConfirmation', sequence: 2, transactionId: fundTx },
        { orderId: record.id, state: 'Funded', sequence: 3, transactionId: fundTx },
      ]);
      seen = await view(record.id);
      assert.equal(seen.order.state, 'Funded');
      assert.equal((await fresh.store.getConfiguration()).chains.ethereum?.blockHeight, await chain.height());
    });

    test('a partial funding and a top-up add up, each through its confirmations', async () => {
      const { record } = await newOrder('partial', 1000n);
      const changes = await follow(record.id);
      const first = await chain.fund(record.id, record.paymentHash, 400n);
      await chain.mine(CONFIRMATIONS - 1);
      // However the watcher's polls fall, a funding is seen before it counts.
      await reaches(record.id, 'PartiallyFunded');
      assert.equal((await view(record.id)).order.amountPaid, '0.0000000000000004');
      const second = await chain.fund(record.id, record.paymentHash, 600n);
      await reaches(record.id, 'WaitingForAdditionalFundingTxConfirmation');
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Funded');
      const seen = await view(record.id);
      assert.equal(seen.order.amountPaid, '0.000000000000001');
      assert.deepEqual(seen.transactions, [
        { type: 'FUND', id: first },
        { type: 'FUND', id: second },
      ]);
      await eventually(() => changes.length === 4, 'four stateChanged events');
      assert.deepEqual(
        changes.map((change) => change.state),
        ['WaitingForFundingTxConfirmation', 'PartiallyFunded', 'WaitingForAdditionalFundingTxConfirmation', 'Funded'],
      );
    });

    test('a confirmed claim completes the order; the preimage reaches the API and stateChanged', async () => {
      const { record, preimage } = await newOrder('claim', 5000n);
      const changes = await follow(record.id);
      await chain.fund(record.id, record.paymentHash, 5000n);
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Funded');
      const claimTx = await chain.claim(record.id, preimage);
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Complete');
      assert.equal((await view(record.id)).order.paymentPreimage, preimage);
      await eventually(() => changes.some((change) => change.state === 'Complete'), 'Complete event');
      assert.deepEqual(changes.at(-1), { orderId: record.id, state: 'Complete', sequence: 4, preimage });
      const history = await fresh.store.getOrderHistory(record.id);
      assert.deepEqual(
        history.map((entry) => entry.state),
        ['WaitingForFundingTx', 'WaitingForFundingTxConfirmation', 'Funded', 'Complete'],
      );
      assert.ok(claimTx.startsWith('0x'));
    });

    test('past the refund height an unclaimed order waits for its refund, then is refunded', async () => {
      const { record } = await newOrder('timelock', 7000n);
      const changes = await follow(record.id);
      await chain.fund(record.id, record.paymentHash, 7000n);
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Funded');
      const refundable = (await fresh.store.getOrder(record.id))?.htlc.refundableAtBlockHeight ?? 0;
      await chain.mine(refundable - (await chain.height()));
      await reaches(record.id, 'WaitingForRefundTx');
      const refundTx = await chain.refund(record.id);
      await reaches(record.id, 'WaitingForRefundTxConfirmation');
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Refunded');
      const seen = await view(record.id);
      assert.deepEqual(seen.transactions.at(-1), { type: 'REFUND', id: refundTx });
      await eventually(() => changes.at(-1)?.state === 'Refunded', 'Refunded event');
      assert.deepEqual(changes.at(-1), { orderId: record.id, state: 'Refunded', sequence: 6, transactionId: refundTx });
    });

    test('a blacklisted order is refunded by the contract owner', async () => {
      const { record } = await newOrder('blacklisted', 3000n);
      await chain.fund(record.id, record.paymentHash, 3000n);
      await reaches(record.id, 'WaitingForFundingTxConfirmation');
      assert.equal(
        await service.transitions.apply({
          orderId: record.id,
          from: 'WaitingForFundingTxConfirmation',
          to: 'AddressBlacklistedWaitingForRefundTx',
          at: Date.now(),
          cause: { source: 'request', reason: 'paymentFailedAddressBlacklisted' },
        }),
        true,
      );
      await chain.mine(CONFIRMATIONS);
      const adminTx = await chain.adminRefund(record.id);
      await reaches(record.id, 'WaitingForRefundTxConfirmation');
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Refunded');
      assert.deepEqual((await view(record.id)).transactions.at(-1), { type: 'REFUND', id: adminTx });
      const history = await fresh.store.getOrderHistory(record.id);
      assert.deepEqual(
        history.slice(-2).map((entry) => [entry.state, entry.cause?.reason, entry.cause?.txId]),
        [
          ['WaitingForRefundTxConfirmation', 'adminRefundSeen', adminTx],
          ['Refunded', 'adminRefundConfirmed', adminTx],
        ],
      );
    });

    test('funds sent after the fund window are shown and refundable', async () => {
      const { record } = await newOrder('late', 2000n, 0);
      await reaches(record.id, 'FundWindowElapsed');
      const fundTx = await chain.fund(record.id, record.paymentHash, 2000n);
      await reaches(record.id, 'WaitingForRefundTx');
      const seen = await view(record.id);
      assert.equal(seen.order.amountPaid, '0.000000000000002');
      assert.deepEqual(seen.transactions, [{ type: 'FUND', id: fundTx }]);
      const refund = (await getJson(service.url, `/api/orders/${record.id}/refund`)) as Record<string, unknown>;
      assert.equal(refund.state, 'WaitingForRefundTx');
    });

    test('a funding that leaves the chain moves the order back; funded again, nothing counts twice', async () => {
      const { record } = await newOrder('reorg', 4000n);
      const snapshot = await chain.snapshot();
      await chain.fund(record.id, record.paymentHash, 4000n);
      await chain.mine(CONFIRMATIONS);
      await reaches(record.id, 'Funded');
      await chain.revert(snapshot);
      await reaches(record.id, 'WaitingForFundingTx');
      assert.deepEqual(await fresh.store.getOrder(record.id).then((order) => order?.transactions), []);
      assert.equal((await view(record.id)).order.amountPaid, '0');

      const again = await chain.fund(record.id, record.paymentHash, 4000n, 'provider');
      await chain.mine(CONFIRMATIONS - 1);
      await reaches(record.id, 'Funded');
      const seen = await view(record.id);
      assert.equal(seen.order.amountPaid, '0.000000000000004');
      assert.deepEqual(seen.transactions, [{ type: 'FUND', id: again }]);
      assert.deepEqual(
        (await fresh.store.getOrderHistory(record.id)).map((entry) => entry.state),
        [
          'WaitingForFundingTx',
          'WaitingForFundingTxConfirmation',
          'Funded',
          'WaitingForFundingTx',
          'WaitingForFundingTxConfirmation',
          'Funded',
        ],
      );
    });
  });
}

/**
 * The provider daemon gives up orders it will never pay on the third swap contract by signing their refunds: a
 * payment that fails returns the user's money within seconds through an unchanged REDSHIFT client's refund
 * details, and a daemon killed with SIGKILL between writing a signature down and sending it never pays the invoice
 * after its restart, and sends the signature then.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { randomUUID } from 'node:crypto';
import {
  cancelOrderTypedData,
  createLnswapClient,
  ethereumRefundTransaction,
  UnsafeFundingDetails,
} from '../../src/client/index.js';
import { readEthereumSlot } from '../../src/provider/ethereum/ethereum-claim.js';
import { ProviderState } from '../../src/provider/state/provider-state.js';
import { anvilSkipReason } from '../support/anvil.js';
import { startCli, waitForLine } from '../support/cli/cli-process.js';
import { RedshiftWebSocketClient } from '../support/e2e/redshift-client.js';
import {
  CONFIRMATIONS,
  ETHER_MARKET,
  POLL_INTERVAL_MS,
  startProviderWorld,
  untilState,
  type ProviderWorld,
  type TestProvider,
} from '../support/e2e/provider-world.js';
import { eventually } from '../support/eventually.js';
import { request, type Ack } from '../support/ws/harness.js';
import { programArgs } from '../support/repository.js';

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
}

describe(
  'lnswap provider signs away the refunds of orders it will never pay (third swap contract)',
  { skip: anvilSkipReason },
  () => {
    let world: ProviderWorld;
    let wallet: RedshiftWebSocketClient;
    before(async () => {
      world = await startProviderWorld({ contractVersion: 3 });
      wallet = new RedshiftWebSocketClient(world.harness.service.url);
      assert.equal(await wallet.connect(), 'SocketConnected');
    });
    after(async () => {
      wallet?.disconnect();
      await world?.close();
    });

    const user = () => world.anvil.accounts[1]!;

    async function startCommand(name: string, provider: TestProvider): Promise<Running> {
      const child = startCli(['provider', '--poll-interval-ms', String(POLL_INTERVAL_MS), '--metrics-port', 'off'], {
        env: {
          LNSWAP_PROVIDER_CONFIG: world.writeConfig(name, 'lnd'),
          LNSWAP_SERVICE_URL: world.harness.service.url,
          LNSWAP_PROVIDER_STATE: world.stateFile(name),
          ETHEREUM_RPC_URL: world.anvil.rpcUrl,
          LNSWAP_PROVIDER_API_KEY: provider.keys.apiKey,
          LNSWAP_PROVIDER_SECRET_KEY: provider.keys.secretKey,
          LNSWAP_PROVIDER_ETHEREUM_KEY: provider.payoutKey,
        },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      await waitForLine(child, (line) => (line.includes('lnswap provider is running') ? true : undefined));
      return { child, output: () => output };
    }

    async function kill(running: Running): Promise<void> {
      const closed = once(running.child, 'close');
      running.child.kill('SIGKILL');
      await closed;
    }

    /** What an unchanged REDSHIFT wallet does: asks for the refund details and sends `details.data` to `details.to`. */
    async function refundAsRedshiftWallet(
      orderId: string,
    ): Promise<{ refunded: bigint; details: Record<string, unknown> }> {
      const details = (await wallet.requestRefundDetails(orderId.replaceAll('-', '').toUpperCase())) as Record<
        string,
        unknown
      >;
      const { to, data } = details.details as { to: Hex; data: Hex };
      const address = user().address;
      const before = await world.anvil.publicClient.getBalance({ address });
      const hash = await world.anvil.wallet(user()).sendTransaction({ to, data });
      const receipt = await world.anvil.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success', 'the refund call went through');
      await world.anvil.mine(CONFIRMATIONS - 1);
      const gas = receipt.gasUsed * receipt.effectiveGasPrice;
      return { refunded: (await world.anvil.publicClient.getBalance({ address })) - before + gas, details };
    }

    /** `requestCancel` as a wallet sends it: `signer`'s EIP-712 signature of the cancel for `funder`'s slot. */
    async function requestCancel(orderId: string, signer = user(), funder: Hex = user().address): Promise<Ack> {
      const chainId = await world.anvil.publicClient.getChainId();
      const signature = await world.anvil.wallet(signer).signTypedData({
        account: signer,
        ...cancelOrderTypedData(orderId, funder, { chainId, verifyingContract: world.contract }),
      });
      const socket = await world.harness.connect('/user/v1');
      try {
        return await request(socket, 'requestCancel', { orderId, funder, signature });
      } finally {
        socket.close();
      }
    }

    async function slotState(orderId: string) {
      return (await readEthereumSlot(world.anvil.publicClient, world.contract, orderId, user().address)).state;
    }

    test('a failed payment: the refund signed, checked by the service, and the user paid back within 10 s', async (t) => {
      const provider = await world.newProvider('coop-failed');
      const daemon = await world.startDaemon('coop-failed', provider);
      try {
        const swap = await world.swap(ETHER_MARKET, 'no-route');
        const fundedAt = Date.now();
        await eventually(
          () => world.payments.payment(swap.invoice.paymentHash)?.status === 'failed',
          'the payment failed',
        );
        const failedAt = Date.now();
        await untilState(world, swap.orderId, 'WaitingForRefundTx');
        const { refunded, details } = await refundAsRedshiftWallet(swap.orderId);
        const back = Date.now() - failedAt;
        const sinceFunded = Date.now() - fundedAt;
        assert.equal(details.type, 'CooperativeRefund');
        assert.equal(details.blocksRemaining, 0);
        assert.equal(refunded, swap.amount, "the user's whole funding back");
        assert.equal(await slotState(swap.orderId), 'refunded');
        assert.ok(back < 10_000, `the user's money back ${back} ms after the payment failed`);
        t.diagnostic(
          `cooperative refund: the user's money back ${back} ms after the payment was seen failed, ` +
            `${sinceFunded} ms after the funding confirmed`,
        );
        await untilState(world, swap.orderId, 'Refunded');
        const history = await world.harness.fresh.store.getOrderHistory(swap.orderId);
        assert.deepEqual(history.map((change) => change.cause?.reason).slice(-3), [
          'providerAuthorizedRefund',
          'refundSeen',
          'refundConfirmed',
        ]);
        assert.equal(
          world.payments.payment(swap.invoice.paymentHash)?.status,
          'failed',
          'the node was not asked again',
        );
      } finally {
        await daemon.close();
      }
    });

    test('killed between writing the signature down and sending it: the restart never pays and sends it', async () => {
      const provider = await world.newProvider('coop-killed');
      const first = await startCommand('coop-killed', provider);
      // The payee would take the payment: only the signed refund keeps the restarted daemon from paying.
      const swap = await world.swap(ETHER_MARKET, 'settle', async () => kill(first));
      assert.equal(await slotState(swap.orderId), 'funded');
      const run = spawnSync(
        process.execPath,
        [
          ...programArgs(import.meta.url, '../support/provider/kill-after-refund-signed'),
          world.stateFile('coop-killed'),
          world.anvil.rpcUrl,
          world.contract,
          swap.orderId,
          user().address,
          provider.payoutKey,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(run.signal, 'SIGKILL', run.stderr);
      const written = ProviderState.open(world.stateFile('coop-killed'));
      try {
        const [signed] = written.refundSignatures(swap.orderId);
        assert.equal(signed?.reported, false, 'written down, not sent');
      } finally {
        written.close();
      }
      await untilState(world, swap.orderId, 'Funded');
      assert.equal(
        world.payments.sendAttempts.get(swap.invoice.paymentHash),
        undefined,
        'nothing paid before the kill',
      );

      const second = await startCommand('coop-killed', provider);
      try {
        await untilState(world, swap.orderId, 'WaitingForRefundTx');
        const history = await world.harness.fresh.store.getOrderHistory(swap.orderId);
        assert.equal(
          history.at(-1)?.cause?.reason,
          'providerAuthorizedRefund',
          'the service heard it only from the restart',
        );
        const { refunded } = await refundAsRedshiftWallet(swap.orderId);
        assert.equal(refunded, swap.amount);
        await untilState(world, swap.orderId, 'Refunded');
        assert.equal(world.payments.sendAttempts.get(swap.invoice.paymentHash), undefined, 'never paid');
      } finally {
        await kill(second);
      }
      const after = ProviderState.open(world.stateFile('coop-killed'));
      try {
        assert.equal(after.payment(swap.invoice.paymentHash), undefined, 'no payment ever begun');
        assert.equal(after.refundSignatures(swap.orderId)[0]?.reported, true, 'acknowledged by the service');
      } finally {
        after.close();
      }
    });

    test("the funder's cancel before any payment: refunded within 10 s, and never paid; a stranger's refused", async (t) => {
      const provider = await world.newProvider('coop-cancel');
      // One round at the start, the next a minute later: the order funded in between waits unpaid for the cancel.
      const daemon = await world.startDaemon('coop-cancel', provider, { pollIntervalMs: 60_000 });
      try {
        const swap = await world.swap(ETHER_MARKET, 'settle');
        await untilState(world, swap.orderId, 'Funded');
        const stranger = world.anvil.accounts[2]!;
        assert.deepEqual(await requestCancel(swap.orderId, stranger), {
          success: false,
          message: 'InvalidCancelSignature',
        });
        assert.deepEqual(await requestCancel(swap.orderId, stranger, stranger.address), {
          success: false,
          message: 'InvalidCancelSignature',
        });
        assert.deepEqual(await requestCancel(randomUUID()), { success: false, message: 'OrderNotFound' });
        const socket = await world.harness.connect('/user/v1');
        try {
          assert.deepEqual(await request(socket, 'requestCancel', { orderId: swap.orderId, funder: user().address }), {
            success: false,
            message: 'InvalidOrMissingCancelFields',
          });
        } finally {
          socket.close();
        }
        assert.equal(await world.orderState(swap.orderId), 'Funded', "a stranger's cancel moves nothing");

        // The funder's cancel through the client library, signed as a wallet signs typed data.
        const funder = user().address;
        const chainId = await world.anvil.publicClient.getChainId();
        const signature = await world.anvil.wallet(user()).signTypedData({
          account: user(),
          ...cancelOrderTypedData(swap.orderId, funder, { chainId, verifyingContract: world.contract }),
        });
        const client = createLnswapClient({ url: world.harness.service.url, transports: ['websocket'] });
        const askedAt = Date.now();
        try {
          await client.requestCancel(swap.orderId, funder, signature);
          const acked = Date.now() - askedAt;
          assert.equal(await world.orderState(swap.orderId), 'WaitingForRefundTx', 'the refund is there at the ack');
          const refund = await client.requestRefundDetails(swap.orderId, funder);
          const call = ethereumRefundTransaction(swap.orderId, refund, funder);
          assert.equal(call.to.toLowerCase(), world.contract.toLowerCase());
          assert.throws(() => ethereumRefundTransaction(swap.orderId, refund), UnsafeFundingDetails);
          assert.throws(() => ethereumRefundTransaction(swap.orderId, refund, stranger.address), UnsafeFundingDetails);
          assert.throws(() => ethereumRefundTransaction(randomUUID(), refund, funder), UnsafeFundingDetails);
          t.diagnostic(`cancel acknowledged ${acked} ms after it was sent`);
        } finally {
          client.close();
        }
        const { refunded, details } = await refundAsRedshiftWallet(swap.orderId);
        const back = Date.now() - askedAt;
        assert.equal(details.type, 'CooperativeRefund');
        assert.equal(refunded, swap.amount, "the user's whole funding back");
        assert.ok(back < 10_000, `the user's money back ${back} ms after the cancel`);
        t.diagnostic(`cancel: the user's money back ${back} ms after asking`);
        await untilState(world, swap.orderId, 'Refunded');
        assert.equal(world.payments.sendAttempts.get(swap.invoice.paymentHash), undefined, 'never paid');
      } finally {
        await daemon.close();
      }
    });

    test('a cancel during a payment in flight: refused, and the payment completed and claimed', async () => {
      const provider = await world.newProvider('coop-in-flight');
      const daemon = await world.startDaemon('coop-in-flight', provider);
      try {
        const swap = await world.swap(ETHER_MARKET, 'hold');
        await eventually(
          () => world.payments.sendAttempts.get(swap.invoice.paymentHash) === 1,
          'the payment in flight',
        );
        const stranger = world.anvil.accounts[2]!;
        assert.deepEqual(await requestCancel(swap.orderId, stranger), {
          success: false,
          message: 'InvalidCancelSignature',
        });
        assert.deepEqual(await requestCancel(swap.orderId), { success: false, message: 'PaymentInProgress' });
        world.payments.settle(swap.invoice.paymentHash);
        await eventually(async () => (await slotState(swap.orderId)) === 'claimed', 'the claim');
        await untilState(world, swap.orderId, 'Complete');
        const written = ProviderState.open(world.stateFile('coop-in-flight'));
        try {
          assert.deepEqual(written.refundSignatures(swap.orderId), [], 'nothing signed away');
        } finally {
          written.close();
        }
      } finally {
        await daemon.close();
      }
    });
  },
);

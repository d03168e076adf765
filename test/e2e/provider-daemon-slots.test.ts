/**
 * The provider daemon and the service agree on what Funded means, end to end on Anvil: an order funded 60 % from
 * one account and 40 % from another is never Funded at the service and never paid by the daemon, which claims one
 * slot; a top-up of the larger slot to the full amount funds it, the daemon pays once and claims it, and the
 * other account refunds its own slot after the timelock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { requestQuote } from '../../examples/user-client.js';
import { parseDecimalAmount } from '../../src/domain/amounts.js';
import { encodeRefundCalldata } from '../../src/domain/ethereum.js';
import { ProviderState } from '../../src/provider/state/provider-state.js';
import { anvilSkipReason } from '../support/anvil.js';
import { makeInvoice } from '../support/invoices.js';
import { eventually } from '../support/ws/harness.js';
import {
  CONFIRMATIONS,
  ETHER_MARKET,
  INVOICE_SATOSHIS,
  startProviderWorld,
  untilState,
  type ProviderWorld,
} from '../support/e2e/provider-world.js';

describe('two accounts funding one order, with the provider daemon', { skip: anvilSkipReason }, () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld();
  });
  after(async () => {
    await world?.close();
  });

  test('60 % + 40 % from two accounts: never Funded, never paid; a top-up of the larger slot: Funded, paid once, claimed', async () => {
    const name = 'two-accounts';
    const provider = await world.newProvider(name);
    const daemon = await world.startDaemon(name, provider);
    const stateFile = world.stateFile(name);
    const { anvil } = world;
    const [user, second] = [anvil.accounts[1]!, anvil.accounts[3]!];
    try {
      const socket = await world.harness.connect('/user/v1');
      const invoice = makeInvoice({ network: 'simnet', amountSatoshis: INVOICE_SATOSHIS, expirySeconds: 7_200 });
      world.payments.expect(invoice, 'settle');
      const quote = await requestQuote(socket, { market: ETHER_MARKET, invoice: invoice.invoice });
      socket.close();
      const { to, data, value } = (quote.details as { unsignedFundingTx: { to: Hex; data: Hex; value: string } })
        .unsignedFundingTx;
      const amount = BigInt(value);
      const larger = (amount * 6n) / 10n;
      const send = async (from: typeof user, wei: bigint) => {
        const hash = await anvil.wallet(from).sendTransaction({ to, data, value: wei });
        const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
        assert.equal(receipt.status, 'success');
      };
      await send(user, larger);
      await send(second, amount - larger);
      await anvil.mine(CONFIRMATIONS);
      await untilState(world, quote.orderId, 'PartiallyFunded');
      // The daemon polls every 20 ms: time for many polls, and blocks for its own confirmations.
      await anvil.mine(CONFIRMATIONS);
      await sleep(1_000);
      assert.equal(await world.orderState(quote.orderId), 'PartiallyFunded', 'the full amount in two slots');
      assert.equal(world.payments.sendAttempts.get(invoice.paymentHash), undefined, 'the daemon never paid');
      const amountPaid = (await (await fetch(`${world.harness.service.url}/api/orders/${quote.orderId}`)).json()) as {
        amountPaid: string;
        amount: string;
      };
      assert.equal(amountPaid.amountPaid, amountPaid.amount, 'both slots are shown as paid in');

      await send(user, amount - larger);
      await anvil.mine(CONFIRMATIONS);
      await untilState(world, quote.orderId, 'Complete');
      assert.equal(world.payments.sendAttempts.get(invoice.paymentHash), 1, 'paid once');
      const history = await world.harness.fresh.store.getOrderHistory(quote.orderId);
      assert.deepEqual(
        history.map((change) => change.state).filter((state) => state === 'Funded'),
        ['Funded'],
        'Funded once, after the top-up',
      );
      await anvil.mine(CONFIRMATIONS);
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.claim(quote.orderId)?.state === 'confirmed', 'the claim to be confirmed');
      } finally {
        state.close();
      }

      const refundOf = async (funder: string) =>
        (await (
          await fetch(`${world.harness.service.url}/api/orders/${quote.orderId}/refund?funder=${funder}`)
        ).json()) as { refundableBalance: string; refundableAtBlockHeight: number };
      assert.equal((await refundOf(user.address)).refundableBalance, '0', "the user's slot was claimed");
      const secondSlot = await refundOf(second.address);
      assert.equal(parseDecimalAmount(secondSlot.refundableBalance, 18), amount - larger);
      await anvil.mine(secondSlot.refundableAtBlockHeight - Number(await anvil.blockNumber()));
      const before = await anvil.publicClient.getBalance({ address: second.address });
      const receipt = await anvil.publicClient.waitForTransactionReceipt({
        hash: await anvil
          .wallet(second)
          .sendTransaction({ to: world.contract, data: encodeRefundCalldata(quote.orderId) }),
      });
      const returned =
        (await anvil.publicClient.getBalance({ address: second.address })) -
        before +
        receipt.gasUsed * receipt.effectiveGasPrice;
      assert.equal(returned, amount - larger, 'the second account takes back its own slot');
      assert.equal(await world.orderState(quote.orderId), 'Complete');
    } finally {
      await daemon.close();
    }
  });
});

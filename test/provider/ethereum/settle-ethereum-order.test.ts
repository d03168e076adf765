import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import { encodeFundCalldata, ZERO_ADDRESS } from '../../../src/domain/ethereum.js';
import {
  settleEthereumOrder,
  type EthereumOrder,
  type EthereumSettlement,
} from '../../../src/provider/ethereum/settle-ethereum-order.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';
import { makeInvoice, makeInvoiceForHash } from '../../support/invoices.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import { startLndRestStandIn } from '../../support/lightning/lnd-rest-stand-in.js';
import { SimulatedPayments, type PayeeBehaviour } from '../../support/lightning/simulated-payments.js';

const REFUND_DELAY = 30n;
const MARGIN = 10;
const AMOUNT = 30_150_000_000_000_000n;
const MACAROON = 'ab'.repeat(16);

describe(
  'an Ethereum order settled by the provider: Anvil, a stand-in LND, its own state file',
  { skip: anvilSkipReason },
  () => {
    const payments = new SimulatedPayments();
    let anvil: AnvilNode;
    let node: RunningStandIn;
    let contract: Hex;
    let dir: string;
    let path: string;
    let settlement: EthereumSettlement;

    before(async () => {
      anvil = await startAnvil();
      contract = await anvil.deploySwapContract(REFUND_DELAY);
      node = await startLndRestStandIn(payments, MACAROON);
      dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-settle-'));
      path = join(dir, 'provider.sqlite');
      settlement = {
        state: ProviderState.open(path),
        lightning: new LndRestBackend({
          url: node.url,
          certificatePem: node.certificatePem,
          macaroonHex: MACAROON,
          timeoutMs: 5_000,
        }),
        publicClient: anvil.publicClient,
        wallet: anvil.wallet(anvil.accounts[2]),
        contract,
        requiredConfirmations: 2,
        claimMarginBlocks: MARGIN,
        paymentTimeoutSeconds: 30,
        feeLimitMillisatoshis: () => 5_000n,
        now: () => Date.now(),
      };
    });
    after(async () => {
      settlement.state.close();
      rmSync(dir, { recursive: true, force: true });
      await node.close();
      await anvil.stop();
    });

    const user = () => anvil.accounts[1]!;
    const provider = () => anvil.accounts[2]!;

    /** An order the provider quoted, funded by the user with `claimer` named in the slot. */
    async function fundedOrder(
      behaviour: PayeeBehaviour,
      options: { claimer?: Hex; value?: bigint } = {},
    ): Promise<EthereumOrder & { paymentHash: string }> {
      const orderId = randomUUID();
      const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
      payments.expect(invoice, behaviour);
      settlement.state.recordQuote({
        orderId,
        market: 'SETH_LSBTC',
        paymentHash: invoice.paymentHash,
        invoice: invoice.invoice,
        invoiceAmountMillisatoshis: 100_000_000n,
        onchainAmount: AMOUNT,
        expiresAtMs: Date.now() + 600_000,
        quotedAtMs: Date.now(),
      });
      const hash = await anvil.wallet(user()).sendTransaction({
        to: contract,
        value: options.value ?? AMOUNT,
        data: encodeFundCalldata(orderId, invoice.paymentHash, options.claimer ?? provider().address),
      });
      await anvil.publicClient.waitForTransactionReceipt({ hash });
      return {
        orderId,
        invoice: invoice.invoice,
        serviceState: 'Funded',
        funder: user().address,
        token: ZERO_ADDRESS,
        paymentHash: invoice.paymentHash,
      };
    }

    test('funded for the provider: it waits for its confirmations, pays once and claims the full amount', async () => {
      const order = await fundedOrder('settle');
      assert.deepEqual(await settleEthereumOrder(settlement, order), { kind: 'waiting', reason: 'unconfirmed' });
      assert.deepEqual(
        await settleEthereumOrder(settlement, { ...order, serviceState: 'WaitingForFundingTxConfirmation' }),
        {
          kind: 'waiting',
          reason: 'not-funded',
        },
      );
      await anvil.mine(1);
      const before = await anvil.publicClient.getBalance({ address: provider().address });
      const step = await settleEthereumOrder(settlement, order);
      assert.equal(step.kind, 'claim-sent');
      const receipt = await anvil.publicClient.waitForTransactionReceipt({
        hash: step.kind === 'claim-sent' ? step.txHash : '0x',
      });
      const after = await anvil.publicClient.getBalance({ address: provider().address });
      assert.equal(after - before, AMOUNT - receipt.gasUsed * receipt.effectiveGasPrice);
      assert.deepEqual(await settleEthereumOrder(settlement, order), { kind: 'claim-broadcast' });
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
      assert.equal(settlement.state.claim(order.orderId)?.state, 'broadcast');
    });

    test('a slot naming another claimer, or short of the quote, is never paid', async () => {
      const elsewhere = await fundedOrder('settle', { claimer: anvil.accounts[3]!.address });
      const short = await fundedOrder('settle', { value: AMOUNT - 1n });
      await anvil.mine(2);
      assert.deepEqual(await settleEthereumOrder(settlement, elsewhere), {
        kind: 'not-paying',
        reason: 'not-our-claimer',
      });
      assert.deepEqual(await settleEthereumOrder(settlement, short), { kind: 'not-paying', reason: 'underfunded' });
      assert.equal(payments.payment(elsewhere.paymentHash), undefined);
      assert.equal(payments.payment(short.paymentHash), undefined);
    });

    test('an invoice of the quoted hash for ten times the amount, handed over for a funded order, is never paid', async () => {
      const order = await fundedOrder('settle');
      await anvil.mine(2);
      const tenfold = makeInvoiceForHash(
        { network: 'simnet', amountSatoshis: 1_000_000n, expirySeconds: 7_200 },
        order.paymentHash,
      );
      assert.deepEqual(await settleEthereumOrder(settlement, { ...order, invoice: tenfold }), {
        kind: 'not-paying',
        reason: 'invoice-not-quoted',
      });
      assert.equal(payments.payment(order.paymentHash), undefined, 'nothing sent to the node');
      assert.equal(settlement.state.payment(order.paymentHash), undefined);
    });

    test('funded too close to its refund height: not paid', async () => {
      const order = await fundedOrder('settle');
      await anvil.mine(Number(REFUND_DELAY) - MARGIN);
      assert.deepEqual(await settleEthereumOrder(settlement, order), {
        kind: 'not-paying',
        reason: 'refund-height-too-close',
      });
      assert.equal(payments.payment(order.paymentHash), undefined);
    });

    test('a payment that fails opens no claim and is not retried', async () => {
      const order = await fundedOrder('no-route');
      await anvil.mine(1);
      assert.deepEqual(await settleEthereumOrder(settlement, order), { kind: 'payment-failed' });
      assert.deepEqual(await settleEthereumOrder(settlement, order), { kind: 'payment-failed' });
      assert.equal(settlement.state.claim(order.orderId), undefined);
    });

    test('in flight when the process dies: after restart it is looked up, never paid again, and claimed once settled', async () => {
      const order = await fundedOrder('hold');
      await anvil.mine(1);
      const impatient = {
        ...settlement,
        lightning: new LndRestBackend({
          url: node.url,
          certificatePem: node.certificatePem,
          macaroonHex: MACAROON,
          timeoutMs: 1_000,
        }),
      };
      assert.deepEqual(await settleEthereumOrder(impatient, order), { kind: 'payment-pending' });
      settlement.state.close();
      settlement.state = ProviderState.open(path);
      assert.deepEqual(await settleEthereumOrder(settlement, order), { kind: 'payment-pending' });
      payments.settle(order.paymentHash);
      const step = await settleEthereumOrder(settlement, order);
      assert.equal(step.kind, 'claim-sent');
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
      assert.equal(
        (await anvil.publicClient.waitForTransactionReceipt({ hash: step.kind === 'claim-sent' ? step.txHash : '0x' }))
          .status,
        'success',
      );
    });
  },
);

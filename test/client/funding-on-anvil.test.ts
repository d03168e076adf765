/**
 * The library's Ethereum helpers on a real chain: a wallet that knows nothing but the client funds an ether order
 * (signed by the wallet, sent through the service's `broadcastTransaction`) and a token order (approval, then
 * `fundToken`) from the quotes alone, follows them to `Funded` over the order subscription, watches the chain's
 * height through the service, and refunds the token order from its refund details after the refund height.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import {
  createLnswapClient,
  ethereumRefundTransaction,
  fundingTransactions,
  UnsafeFundingDetails,
  type BlockHeightChangedView,
  type LnswapClient,
} from '../../src/client/index.js';
import { payInvoice } from '../../examples/wallet-swap.js';
import { anvilSkipReason, type AnvilNode } from '../support/anvil.js';
import {
  CONFIRMATIONS,
  ETHER_MARKET,
  startEthereumSwapWorld,
  TOKEN_MARKET,
  type EthereumSwapWorld,
} from '../support/ethereum-swap-world.js';
import { makeInvoice } from '../support/invoices.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { eventually, type TestService } from '../support/ws/harness.js';

const REFUND_DELAY = 20;

describe('funding and refunding on Anvil with the client alone', { skip: anvilSkipReason }, () => {
  let world: EthereumSwapWorld | undefined;
  let node: AnvilNode;
  let contract: Address;
  let token: Address;
  let harness: TestService;
  let client: LnswapClient;
  const user = () => world!.user;

  before(async () => {
    world = await startEthereumSwapWorld({ refundDelay: BigInt(REFUND_DELAY) });
    ({ node, contract, token, harness } = world);
    client = createLnswapClient({ url: harness.service.url, timeoutMs: 5_000 });
  });
  after(async () => {
    client?.close();
    await world?.close();
  });

  test('an ether order funded through the service from the quote alone reaches Funded; heights follow the chain', async () => {
    const heights: BlockHeightChangedView[] = [];
    await client.subscribeToBlockHeight({ network: 'ethereum', subnet: 'simnet' }, (change) => heights.push(change));
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
    const quote = await client.requestQuote({ market: ETHER_MARKET, invoice: invoice.invoice });
    const transactions = fundingTransactions(quote, { paymentHash: invoice.paymentHash, swapContract: contract });
    assert.equal(transactions.length, 1);
    const wallet = node.wallet(user());
    const signed = await wallet.signTransaction(await wallet.prepareTransactionRequest({ ...transactions[0]! }));
    const txId = await client.broadcastTransaction('SETH', signed);
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash: txId as `0x${string}` });
    assert.equal(receipt.status, 'success');
    const funded = client.waitForState(quote.orderId, ['Funded'], { timeoutMs: 10_000 });
    await node.mine(CONFIRMATIONS - 1);
    assert.equal((await funded).transactionId, txId);
    const order = await client.order(quote.orderId);
    assert.equal(order.amountPaid, order.amount);
    const tip = Number(await node.blockNumber());
    await eventually(() => heights.at(-1)?.height === tip, 'the height of the tip');
    assert.deepEqual(heights.at(-1), { network: 'ethereum', subnet: 'simnet', height: tip });
  });

  test('a token order: approval then fundToken to Funded, and after the refund height its refund to Refunded', async () => {
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
    const quote = await client.requestQuote({ market: TOKEN_MARKET, invoice: invoice.invoice });
    const states: string[] = [];
    const subscription = await client.subscribeToOrderState(quote.orderId, (change) => states.push(change.state));
    const [approval, funding, ...more] = fundingTransactions(quote, {
      paymentHash: invoice.paymentHash,
      swapContract: contract,
    });
    assert.deepEqual(more, []);
    assert.equal(approval?.to.toLowerCase(), token.toLowerCase());
    assert.equal(funding?.to.toLowerCase(), contract.toLowerCase());
    const before = await node.tokenBalance(token, user().address);
    const wallet = node.wallet(user());
    for (const transaction of [approval!, funding!]) {
      const receipt = await node.publicClient.waitForTransactionReceipt({
        hash: await wallet.sendTransaction(transaction),
      });
      assert.equal(receipt.status, 'success');
    }
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => states.includes('Funded'), 'Funded');
    assert.ok((await node.tokenBalance(token, user().address)) < before);

    await node.mine(REFUND_DELAY);
    await eventually(() => states.includes('WaitingForRefundTx'), 'WaitingForRefundTx');
    const details = await client.requestRefundDetails(quote.orderId, user().address);
    assert.ok('blocksRemaining' in details);
    assert.equal(details.blocksRemaining, 0);
    const refund = ethereumRefundTransaction(quote.orderId, details);
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction(refund) });
    assert.equal(receipt.status, 'success');
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => states.includes('Refunded'), 'Refunded');
    assert.equal(await node.tokenBalance(token, user().address), before);
    assert.deepEqual(states, [
      'WaitingForFundingTx',
      'WaitingForFundingTxConfirmation',
      'Funded',
      'WaitingForRefundTx',
      'WaitingForRefundTxConfirmation',
      'Refunded',
    ]);
    await subscription.unsubscribe();
  });

  /** What the README's swap is given: the token market, the invoice and its hash, the contract the wallet trusts. */
  function payment(invoice: { invoice: string; paymentHash: string }, swapContract: string = contract) {
    return { market: TOKEN_MARKET, invoice: invoice.invoice, paymentHash: invoice.paymentHash, swapContract };
  }

  test("the README's swap refuses a contract that is not lnswap's before it asks for a quote", async () => {
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 110_000n, expirySeconds: 7_200 });
    const before = await node.tokenBalance(token, user().address);
    await assert.rejects(
      payInvoice(harness.service.url, payment(invoice, token), node.wallet(user()), node.publicClient),
      (error: unknown) => error instanceof UnsafeFundingDetails && error.fault === 'NotSwapContract',
    );
    assert.deepEqual(await client.ordersOfInvoice(invoice.invoice), []);
    assert.equal(await node.tokenBalance(token, user().address), before);
  });

  test("the README's swap (examples/wallet-swap.ts): paid, it answers the preimage; unpaid, it refunds itself", async () => {
    const wallet = node.wallet(user());
    const paid = makeInvoice({ network: 'simnet', amountSatoshis: 120_000n, expirySeconds: 7_200 });
    const paying = payInvoice(harness.service.url, payment(paid), wallet, node.publicClient);
    const [paidOrder] = await orderOf(paid.invoice, 'Funded');
    // The provider's part, which no provider runs here: paying the invoice, reported with its preimage.
    const move = { orderId: paidOrder!, at: Date.now(), cause: MOVE_CAUSE };
    assert.ok(
      await harness.service.transitions.apply({
        ...move,
        from: 'Funded',
        to: 'Complete',
        paymentPreimage: paid.preimage,
      }),
    );
    assert.deepEqual(await paying, { preimage: paid.preimage });

    const unpaid = makeInvoice({ network: 'simnet', amountSatoshis: 130_000n, expirySeconds: 7_200 });
    const before = await node.tokenBalance(token, user().address);
    const refunding = payInvoice(harness.service.url, payment(unpaid), wallet, node.publicClient);
    const [unpaidOrder] = await orderOf(unpaid.invoice, 'Funded');
    await node.mine(REFUND_DELAY);
    const outcome = await refunding;
    assert.ok('refundTxId' in outcome);
    await node.mine(CONFIRMATIONS - 1);
    await eventually(async () => (await client.orderState(unpaidOrder!)) === 'Refunded', 'Refunded');
    assert.equal(await node.tokenBalance(token, user().address), before);
    assert.deepEqual(await client.transactions(unpaidOrder!), [
      { type: 'FUND', id: (await client.transactions(unpaidOrder!))[0]!.id },
      { type: 'REFUND', id: outcome.refundTxId },
    ]);
  });

  /** The order of `invoice` once it is in `state`, mining a block at a time while the wallet funds it. */
  async function orderOf(invoice: string, state: string): Promise<string[]> {
    let ids: string[] = [];
    await eventually(async () => {
      const orders = await client.ordersOfInvoice(invoice);
      ids = orders.map((order) => order.id);
      if (orders[0]?.state === state) return true;
      await node.mine(1);
      return false;
    }, `the order of the invoice to be ${state}`);
    return ids;
  }
});

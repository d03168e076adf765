import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startProviderBot, type ProviderBot } from '../../examples/provider-bot.js';
import { followOrder, requestQuote, type StateChanged } from '../../examples/user-client.js';
import { encodeClaimCalldata, encodeFundCalldata } from '../../src/domain/ethereum.js';
import { anvilSkipReason } from '../support/anvil.js';
import { PROVIDER_PAYOUT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { startSwapChain, type SwapChain, swapChainConfiguration } from '../support/chains/ethereum/swap-chain.js';
import { addProvider, connectClient, eventually, startTestService, type TestService } from '../support/ws/harness.js';
import { BOT_PAY_REQ, makerTerms, WEI_PER_SATOSHI } from '../support/e2e/bots.js';

const MARKET = 'SETH_LSBTC';
const REFUND_DELAY = 30;
const CONFIRMATIONS = 2;

describe('an Ethereum swap from requestQuote to Complete on Anvil', { skip: anvilSkipReason }, () => {
  let chain: SwapChain;
  let harness: TestService;
  let bot: ProviderBot;

  before(async () => {
    chain = await startSwapChain({ refundDelay: REFUND_DELAY });
    await chain.mine(5);
    harness = await startTestService('sqlite', {
      configuration: swapChainConfiguration(chain, MARKET),
      engine: { quoteDeadlineMs: 300, ethereumRefundDelayBlocks: 5_760 },
      ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
    });
    const keys = await addProvider(harness.fresh.store, 'maker');
    const socket = await connectClient(harness.service.url, '/provider/v1');
    bot = await startProviderBot({
      socket,
      ...keys,
      markets: { [MARKET]: BOT_PAY_REQ },
      terms: { ...makerTerms('maker', 100n, 60_000), swapContractAddress: chain.contractAddress },
    });
  });
  after(async () => {
    bot?.close();
    await harness?.close();
    await chain?.close();
  });

  test('the user signs the exact unsignedFundingTx; the provider claims on chain; the watcher completes', async () => {
    await eventually(
      async () =>
        (await harness.fresh.store.getConfiguration()).chains.ethereum?.blockHeight === (await chain.height()),
      'the watcher to reach the tip',
    );
    const user = await harness.connect('/user/v1');
    const { invoice, paymentHash, preimage } = makeInvoice({
      network: 'simnet',
      amountSatoshis: 20_000n,
      expirySeconds: 7200,
    });
    const quote = await requestQuote(user, { market: MARKET, invoice });
    const value = (20_000n + 100n) * WEI_PER_SATOSHI;
    assert.deepEqual(quote.details, {
      unsignedFundingTx: {
        to: chain.contractAddress,
        data: encodeFundCalldata(quote.orderId, paymentHash, PROVIDER_PAYOUT_ADDRESS),
        value: value.toString(),
      },
    });
    const quoted = await harness.fresh.store.getOrder(quote.orderId);
    assert.equal(
      quoted?.htlc.refundableAtBlockHeight,
      (await chain.height()) + REFUND_DELAY,
      "the quote's refund height uses the deployed contract's delay, not the engine option",
    );

    const changes: StateChanged[] = [];
    const { settled } = await followOrder(user, quote.orderId, (change) => changes.push(change));

    const { to, data } = (quote.details as { unsignedFundingTx: { to: `0x${string}`; data: `0x${string}` } })
      .unsignedFundingTx;
    const wallet = chain.node.wallet(chain.account('user'));
    const request = await wallet.prepareTransactionRequest({ to, data, value });
    const signed = await wallet.signTransaction(request);
    const fundTx = await chain.node.publicClient.sendRawTransaction({ serializedTransaction: signed });
    // The block that holds the funding, as the node reports it (reading the tip instead races the automined block).
    const fundHeight = Number((await chain.node.publicClient.waitForTransactionReceipt({ hash: fundTx })).blockNumber);
    await chain.mine(CONFIRMATIONS - 1);
    await eventually(() => changes.some((change) => change.state === 'Funded'), 'Funded');
    assert.equal(
      (await harness.fresh.store.getOrder(quote.orderId))?.htlc.refundableAtBlockHeight,
      fundHeight + REFUND_DELAY,
    );

    // Anyone may send the claim; the contract pays the slot's claimer, the provider's registered payout address.
    const balanceOfPayout = () => chain.node.publicClient.getBalance({ address: PROVIDER_PAYOUT_ADDRESS });
    const payoutBefore = await balanceOfPayout();
    const claimTx = await chain.node.wallet(chain.account('provider')).sendTransaction({
      to: chain.contractAddress,
      data: encodeClaimCalldata(quote.orderId, chain.account('user').address, preimage),
    });
    // Accepted is not yet mined: the balance is read from the claim's block.
    const claim = await chain.node.publicClient.waitForTransactionReceipt({ hash: claimTx });
    assert.equal(claim.status, 'success');
    assert.equal((await balanceOfPayout()) - payoutBefore, value);
    await chain.mine(CONFIRMATIONS - 1);
    assert.deepEqual(await settled, { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage });
    assert.deepEqual(changes, [
      { orderId: quote.orderId, state: 'WaitingForFundingTxConfirmation', sequence: 2, transactionId: fundTx },
      { orderId: quote.orderId, state: 'Funded', sequence: 3, transactionId: fundTx },
      { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage },
    ]);
    const response = await fetch(`${harness.service.url}/api/orders/${quote.orderId}`);
    const order = (await response.json()) as Record<string, unknown>;
    assert.equal(order.state, 'Complete');
    assert.equal(order.paymentPreimage, preimage);
    assert.equal(order.amountPaid, '0.00603');
  });
});

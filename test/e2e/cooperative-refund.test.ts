import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Hex, LocalAccount } from 'viem';
import { startProviderBot, type ProviderBot } from '../../examples/provider-bot.js';
import { requestQuote } from '../../examples/user-client.js';
import { encodeRefundCooperativeCalldata } from '../../src/domain/cooperative-refund.js';
import type { StateChangedEvent } from '../../src/engine/lifecycle/state-events.js';
import { anvilSkipReason } from '../support/anvil.js';
import { BOT_PAY_REQ, makerTerms, WEI_PER_SATOSHI } from '../support/e2e/bots.js';
import { RedshiftWebSocketClient } from '../support/e2e/redshift-client.js';
import { makeInvoice } from '../support/invoices.js';
import { startSwapChain, swapChainConfiguration, type SwapChain } from '../support/chains/ethereum/swap-chain.js';
import {
  addProvider,
  connectClient,
  eventually,
  recordEvents,
  refusalOf,
  startTestService,
  succeed,
  type Client,
  type ProviderKeys,
  type TestService,
} from '../support/ws/harness.js';
import { signCooperativeRefund } from '../chains/ethereum/swap-contract-v3.js';

const MARKET = 'SETH_LSBTC';
const REFUND_DELAY = 30;
const CONFIRMATIONS = 2;
const INVOICE_SATOSHIS = 20_000n;
const PREMIUM_SATOSHIS = 100n;
const VALUE = (INVOICE_SATOSHIS + PREMIUM_SATOSHIS) * WEI_PER_SATOSHI;

/**
 * The service's side of a cooperative refund on the third swap contract, on Anvil: the winning provider's signed
 * refund is checked (a stranger's forgery and another provider's refused), stored with the order's move, announced
 * to subscribers, and answered as `CooperativeRefund` refund details whose `details.data`, sent as an unchanged
 * REDSHIFT client sends it, returns the user's whole slot at once, long before the refund height.
 */
describe('cooperative refunds through the service on Anvil', { skip: anvilSkipReason }, () => {
  let chain: SwapChain;
  let v3: Hex;
  let harness: TestService;
  let bot: ProviderBot;
  let maker: Client;
  let intruder: Client;
  let wallet: RedshiftWebSocketClient;

  async function provider(name: string, keys: ProviderKeys): Promise<Client> {
    const socket = await connectClient(harness.service.url, '/provider/v1');
    await succeed(socket, 'authenticate', keys);
    return socket;
  }

  before(async () => {
    chain = await startSwapChain({ refundDelay: REFUND_DELAY });
    v3 = await chain.node.deploySwapContract(BigInt(REFUND_DELAY), undefined, 3);
    await chain.mine(5);
    harness = await startTestService('sqlite', {
      configuration: swapChainConfiguration({ contractAddress: v3 }, MARKET),
      engine: { quoteDeadlineMs: 300 },
      ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
    });
    const makerKeys = await addProvider(harness.fresh.store, 'maker', chain.address('provider'));
    const intruderKeys = await addProvider(harness.fresh.store, 'intruder', chain.address('attacker'));
    bot = await startProviderBot({
      socket: await connectClient(harness.service.url, '/provider/v1'),
      ...makerKeys,
      markets: { [MARKET]: BOT_PAY_REQ },
      terms: {
        ...makerTerms('maker', PREMIUM_SATOSHIS, 60_000, chain.address('provider')),
        swapContractAddress: v3,
      },
    });
    maker = await provider('maker', makerKeys);
    intruder = await provider('intruder', intruderKeys);
    wallet = new RedshiftWebSocketClient(harness.service.url);
    assert.equal(await wallet.connect(), 'SocketConnected');
  });
  after(async () => {
    wallet?.disconnect();
    maker?.close();
    intruder?.close();
    bot?.close();
    await harness?.close();
    await chain?.close();
  });

  const account = (party: 'provider' | 'attacker') => chain.account(party) as LocalAccount;

  test("a REDSHIFT client's refund details send the provider's signed refund: the whole slot back at once", async () => {
    const tip = await chain.height();
    await eventually(
      async () => ((await harness.fresh.store.getConfiguration()).chains.ethereum?.blockHeight ?? -1) >= tip,
      'the watcher at the tip',
    );
    const user = await harness.connect('/user/v1');
    const { invoice, paymentHash } = makeInvoice({
      network: 'simnet',
      amountSatoshis: INVOICE_SATOSHIS,
      expirySeconds: 7200,
    });
    const quote = await requestQuote(user, { market: MARKET, invoice });
    const { orderId } = quote;
    const { to, data } = (quote.details as { unsignedFundingTx: { to: Hex; data: Hex } }).unsignedFundingTx;
    assert.equal(to, v3);
    await succeed(user, 'subscribeToOrderState', { orderId });
    const events = recordEvents<StateChangedEvent>(user, 'stateChanged');

    const fundTx = await chain.node.wallet(chain.account('user')).sendTransaction({ to, data, value: VALUE });
    await chain.node.publicClient.waitForTransactionReceipt({ hash: fundTx });
    await chain.mine(CONFIRMATIONS - 1);
    await eventually(async () => (await harness.fresh.store.getOrder(orderId))?.state === 'Funded', 'Funded');
    assert.equal((await harness.fresh.store.getOrder(orderId))?.paymentHash, paymentHash);

    const domain = { chainId: await chain.node.publicClient.getChainId(), verifyingContract: v3 };
    const funder = chain.address('user');
    const genuine = await signCooperativeRefund(account('provider'), domain, orderId, funder as Hex);
    const forged = await signCooperativeRefund(account('attacker'), domain, orderId, funder as Hex);
    // Another provider, whatever it signs; the winner with a signature that is not its claimer's.
    assert.equal(
      await refusalOf(intruder, 'refundAuthorization', { orderId, refunds: [{ funder, signature: forged }] }),
      'OrderNotWonByProvider',
    );
    assert.equal(
      await refusalOf(intruder, 'refundAuthorization', { orderId, refunds: [{ funder, signature: genuine }] }),
      'OrderNotWonByProvider',
    );
    assert.equal(
      await refusalOf(maker, 'refundAuthorization', { orderId, refunds: [{ funder, signature: forged }] }),
      'InvalidRefundSignature',
    );
    assert.equal((await harness.fresh.store.getOrder(orderId))?.state, 'Funded');
    assert.equal(
      ((await wallet.requestRefundDetails(orderId)) as { type: string }).type,
      'TimelockRefund',
      'no refund is signed yet',
    );

    const authorizedAt = Date.now();
    await succeed(maker, 'refundAuthorization', { orderId, refunds: [{ funder, signature: genuine }] });
    await eventually(() => events.some((event) => event.state === 'WaitingForRefundTx'), 'the move announced');
    assert.deepEqual(events.at(-1), {
      orderId,
      state: 'WaitingForRefundTx',
      sequence: 4,
      reason: 'providerAuthorizedRefund',
    });

    const refundHeight = (await harness.fresh.store.getOrder(orderId))?.htlc.refundableAtBlockHeight as number;
    const expected = {
      market: MARKET,
      type: 'CooperativeRefund',
      state: 'WaitingForRefundTx',
      blocksRemaining: 0,
      refundableAtBlockHeight: refundHeight,
      refundableBalance: '0.00603',
      details: { to: v3, data: encodeRefundCooperativeCalldata(orderId, { funder, signature: genuine }) },
    };
    const details = await wallet.requestRefundDetails(orderId.replaceAll('-', '').toUpperCase());
    assert.deepEqual(details, expected);
    assert.equal(expected.details.data.slice(0, 10), '0xd11f56ec', "refundCooperative's selector");
    assert.ok(refundHeight > (await chain.height()) + 20, 'far from the refund height');
    const byFunder = await fetch(`${harness.service.url}/api/orders/${orderId}/refund?funder=${funder}`);
    assert.deepEqual(await byFunder.json(), expected);

    // The wallet sends details.data as it is; a relayer may as well, and the contract pays the funder alone.
    const userBefore = await chain.balance('user');
    const refundTx = await chain.node.wallet(chain.account('attacker')).sendTransaction({
      to: expected.details.to,
      data: expected.details.data,
    });
    const receipt = await chain.node.publicClient.waitForTransactionReceipt({ hash: refundTx });
    assert.equal(receipt.status, 'success');
    assert.equal((await chain.balance('user')) - userBefore, VALUE, 'the whole slot back to the funder');
    const refundedAfterMs = Date.now() - authorizedAt;

    await chain.mine(CONFIRMATIONS - 1);
    await eventually(async () => (await harness.fresh.store.getOrder(orderId))?.state === 'Refunded', 'Refunded');
    await eventually(() => events.some((event) => event.state === 'Refunded'), 'Refunded announced');
    assert.deepEqual(
      events.map((event) => event.state),
      ['WaitingForFundingTxConfirmation', 'Funded', 'WaitingForRefundTx', 'WaitingForRefundTxConfirmation', 'Refunded'],
    );
    const history = await harness.fresh.store.getOrderHistory(orderId);
    assert.deepEqual(
      history.map((change) => [change.state, change.cause?.reason]),
      [
        ['WaitingForFundingTx', 'requestQuote'],
        ['WaitingForFundingTxConfirmation', 'fundingSeen'],
        ['Funded', 'fundingConfirmed'],
        ['WaitingForRefundTx', 'providerAuthorizedRefund'],
        ['WaitingForRefundTxConfirmation', 'refundSeen'],
        ['Refunded', 'refundConfirmed'],
      ],
    );
    assert.ok(refundedAfterMs < 10_000, `refunded ${refundedAfterMs} ms after the authorization`);
  });
});

/**
 * The wallets' library against a running service: every read of the HTTP API and every `/user/v1` request,
 * each answer what the service answers (HTTP and socket.io alike), refusals as their tokens, an ack that never
 * comes as a timeout, and order states resumed without a gap after the connection drops.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Server } from 'socket.io';
import {
  createLnswapClient,
  ethereumRefundTransaction,
  fundingTransactions,
  invoiceHash,
  ServiceRefusal,
  ServiceTimeout,
  UnsafeFundingDetails,
  type BlockHeightChangedView,
  type FundingDetailsView,
  type LnswapClient,
  type StateChangedView,
} from '../../src/client/index.js';
import { encodeRefundCalldata } from '../../src/domain/ethereum.js';
import type { StateTransition } from '../../src/store/store.js';
import { p2wpkhAddress, walletKey } from '../support/bitcoin-wallet.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { BOT_PAY_REQ, makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { BITCOIN_VIEW, buildOrder, hex32, SWAP_CONTRACT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { addProvider, eventually, startTestService, type TestService } from '../support/ws/harness.js';

const UNKNOWN_ORDER_ID = '8b1d3e5c-0000-4000-8000-000000000001';

const refusal = (token: string, status?: number) => (error: unknown) => {
  assert.ok(error instanceof ServiceRefusal, String(error));
  assert.equal(error.token, token);
  assert.equal(error.status, status);
  return true;
};

describe('the client speaks the whole user protocol of a running service', () => {
  const resumed = buildOrder({ label: 'client-resume', createdAt: Date.now() });
  let harness: TestService;
  let running: RunningBot;
  let client: LnswapClient;
  const refundAddress = p2wpkhAddress(walletKey(hex32('client refund key')), 'mainnet');

  before(async () => {
    harness = await startTestService('sqlite', { orders: [resumed.record] });
    const keys = await addProvider(harness.fresh.store, 'client-maker');
    running = await runBot(harness.service.url, keys, makerTerms('client-maker', 100n, 600_000));
    client = createLnswapClient({ url: `${harness.service.url}/`, timeoutMs: 5_000 });
  });
  after(async () => {
    client.close();
    running.bot.close();
    await harness.close();
  });

  test('markets and requirements, over HTTP and socket.io alike', async () => {
    assert.deepEqual(await client.markets(), [
      { onchainTicker: 'BTC', offchainTicker: 'LBTC', market: 'BTC_LBTC' },
      { onchainTicker: 'ETH', offchainTicker: 'LBTC', market: 'ETH_LBTC' },
    ]);
    const requirements = await client.marketRequirements();
    assert.deepEqual(requirements, [
      { market: 'BTC_LBTC', payReq: BOT_PAY_REQ },
      { market: 'ETH_LBTC', payReq: BOT_PAY_REQ },
    ]);
    assert.deepEqual(await client.marketRequirementsOf('btc_lbtc'), requirements[0]);
    assert.deepEqual(await client.requestMarketRequirements(), requirements);
    await assert.rejects(client.marketRequirementsOf('DOGE_LBTC'), refusal('InvalidMarket', 400));
  });

  test('a Bitcoin quote, then every read of its order, each the same as the HTTP answer', async () => {
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7_200 });
    const quote = await client.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress });
    assert.ok('redeemScript' in quote.details);
    assert.equal(quote.details.refundableAtBlockHeight, BITCOIN_VIEW.blockHeight + 144);
    assert.deepEqual(await client.fundDetails(quote.orderId), quote);
    const order = await client.order(quote.orderId);
    assert.equal(order.state, 'WaitingForFundingTx');
    assert.equal(order.invoice, invoice);
    assert.equal(order.payToAddress, quote.details.payToAddress);
    assert.equal(await client.orderState(quote.orderId.toUpperCase()), 'WaitingForFundingTx');
    const { invoice: _invoice, paymentHash: _paymentHash, ...summary } = order;
    assert.deepEqual(await client.ordersOfInvoice(invoice), [summary]);
    assert.deepEqual(await client.ordersOfInvoice(invoice, 'eth'), []);
    assert.equal(await invoiceHash(invoice), await sha256Hex(invoice));
    assert.deepEqual(await client.transactions(quote.orderId), []);
    const refund = await client.refund(quote.orderId);
    assert.deepEqual(await client.requestRefundDetails(quote.orderId), refund);
    assert.ok('refundAddress' in refund.details);
    assert.equal(refund.details.refundAddress, refundAddress);
    assert.deepEqual(refund.details.utxos, []);
    await assert.rejects(client.refund(quote.orderId, `0x${'ab'.repeat(20)}`), refusal('OrderHasNoSlots', 400));
    await assert.rejects(
      client.requestRefundDetails(quote.orderId, `0x${'ab'.repeat(20)}`),
      refusal('OrderHasNoSlots'),
    );
  });

  test('an ether quote gives the fund call to send; calldata for anything else is refused before signing', async () => {
    const invoice = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7_200 });
    const quote = await client.requestQuote({ market: 'ETH_LBTC', invoice: invoice.invoice });
    assert.ok('unsignedFundingTx' in quote.details);
    const expected = { paymentHash: invoice.paymentHash, swapContract: SWAP_CONTRACT_ADDRESS };
    const [fund, ...more] = fundingTransactions(quote, expected);
    assert.deepEqual(more, []);
    assert.equal(fund?.to.toLowerCase(), SWAP_CONTRACT_ADDRESS);
    assert.equal(fund.value, (40_000n + 100n) * 300_000_000_000n);
    const unsigned = quote.details.unsignedFundingTx;
    assert.equal(fund.data, unsigned.data.toLowerCase());

    const tampered = (
      change: (details: { to: string; data: string; value: string }) => object,
    ): FundingDetailsView => ({
      ...quote,
      details: {
        unsignedFundingTx: { ...unsigned, ...change(unsigned) },
      },
    });
    const unsafe = (fault: string) => (error: unknown) =>
      error instanceof UnsafeFundingDetails && error.fault === fault;
    assert.throws(
      () => fundingTransactions(quote, { ...expected, paymentHash: hex32('another invoice') }),
      unsafe('WrongPaymentHash'),
    );
    assert.throws(() => fundingTransactions({ ...quote, orderId: resumed.record.id }, expected), unsafe('WrongOrder'));
    assert.throws(
      () =>
        fundingTransactions(
          tampered(({ value }) => ({ value: `${value}1` })),
          expected,
        ),
      unsafe('WrongAmount'),
    );
    assert.throws(
      () =>
        fundingTransactions(
          tampered(({ data }) => ({ data: `${data}00` })),
          expected,
        ),
      unsafe('WrongFunction'),
    );
    assert.throws(
      () =>
        fundingTransactions(
          tampered(() => ({ to: 'not an address' })),
          expected,
        ),
      unsafe('MalformedTransaction'),
    );
    assert.throws(
      () =>
        fundingTransactions(
          tampered(() => ({ to: `0x${'ab'.repeat(20)}` })),
          expected,
        ),
      unsafe('WrongContract'),
    );

    const funder = `0x${'ab'.repeat(20)}`;
    await assert.rejects(client.refund(quote.orderId, funder), refusal('SlotNotFound', 404));
    await assert.rejects(client.requestRefundDetails(quote.orderId, funder), refusal('SlotNotFound'));
    await assert.rejects(client.requestRefundDetails(quote.orderId, 'me'), refusal('InvalidFunder'));
    const refund = await client.requestRefundDetails(quote.orderId);
    assert.deepEqual(ethereumRefundTransaction(quote.orderId, refund), {
      to: SWAP_CONTRACT_ADDRESS,
      data: encodeRefundCalldata(quote.orderId),
      value: 0n,
    });
    assert.throws(() => ethereumRefundTransaction(resumed.record.id, refund), unsafe('WrongOrder'));
  });

  test("refusals carry the service's token", async () => {
    const small = makeInvoice({ network: 'mainnet', amountSatoshis: 500n, expirySeconds: 7_200 });
    await assert.rejects(
      client.requestQuote({ market: 'BTC_LBTC', invoice: small.invoice, refundAddress }),
      refusal('InvoiceAmountBelowMinimum'),
    );
    await assert.rejects(client.order('8b1d3e5c-0000-4000-8000-000000000000'), refusal('OrderNotFound', 404));
    await assert.rejects(client.orderState('nope'), refusal('InvalidOrderId', 400));
    await assert.rejects(client.ordersOfInvoice('lnbc1', 'DOGE'), refusal('InvalidOnchainTicker', 400));
    await assert.rejects(client.transactions('nope'), refusal('InvalidOrderId', 400));
    await assert.rejects(
      client.subscribeToOrderState('8b1d3e5c-0000-4000-8000-000000000000', () => {}),
      refusal('OrderNotFound'),
    );
    await assert.rejects(
      client.subscribeToBlockHeight({ network: 'dogecoin', subnet: 'mainnet' }, () => {}),
      refusal('InvalidNetworkOrSubnet'),
    );
    // The service runs no Bitcoin node here: broadcasting is refused, not lost.
    await assert.rejects(client.broadcastTransaction('BTC', '0200'), refusal('NoBackendConfigured'));
  });

  test('order states resume after a dropped connection: each state once, in order, none missed', async () => {
    const orderId = resumed.record.id;
    const seen: StateChangedView[] = [];
    const subscription = await client.subscribeToOrderState(orderId, (change) => seen.push(change));
    assert.deepEqual(seen, [{ orderId, state: 'WaitingForFundingTx', sequence: 1 }]);
    const fund = { type: 'FUND' as const, id: 'e'.repeat(64), amount: resumed.record.amount, outputIndex: 0 };
    const move = (from: StateTransition['from'], to: StateTransition['to'], extra: Partial<StateTransition> = {}) =>
      harness.service.transitions.apply({ orderId, from, to, at: Date.now(), cause: MOVE_CAUSE, ...extra });
    assert.ok(await move('WaitingForFundingTx', 'WaitingForFundingTxConfirmation', { transaction: fund }));
    await eventually(() => seen.length === 2, 'the live move');

    const socket = client.userSocket().socket;
    const dropped = new Promise((resolve) => socket.once('disconnect', resolve));
    socket.io.engine.close();
    await dropped;
    // Made while the client is away: only the renewal with sinceSequence can bring them.
    assert.ok(await move('WaitingForFundingTxConfirmation', 'Funded'));
    assert.ok(await move('Funded', 'Complete', { paymentPreimage: resumed.preimage }));
    await eventually(() => seen.length === 4, 'the missed states after the reconnect');
    assert.deepEqual(
      seen.map(({ sequence, state }) => [sequence, state]),
      [
        [1, 'WaitingForFundingTx'],
        [2, 'WaitingForFundingTxConfirmation'],
        [3, 'Funded'],
        [4, 'Complete'],
      ],
    );
    assert.equal(seen[3]?.preimage, resumed.preimage);
    assert.equal(subscription.lastSequence, 4);
    assert.deepEqual(
      await client.waitForState(orderId, ['Complete'], { timeoutMs: 5_000 }),
      seen[3],
      'a wait for a state the order is in answers at once, from the replay',
    );
    await subscription.unsubscribe();
  });

  test('block heights follow the chain view, and keep coming after a dropped connection', async () => {
    const heights: BlockHeightChangedView[] = [];
    const subscription = await client.subscribeToBlockHeight({ network: 'Bitcoin', subnet: 'MAINNET' }, (change) =>
      heights.push(change),
    );
    let height: number = BITCOIN_VIEW.blockHeight;
    const nextHeight = async () => {
      height += 1;
      const { chains } = await harness.fresh.store.getConfiguration();
      await harness.fresh.store.setChainViews({ ...chains, bitcoin: { ...BITCOIN_VIEW, blockHeight: height } });
    };
    await nextHeight();
    await eventually(() => heights.length === 1, 'a height');
    assert.deepEqual(heights, [{ network: 'bitcoin', subnet: 'mainnet', height }]);

    const socket = client.userSocket().socket;
    const back = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.io.engine.close();
    await back;
    // Heights are not replayed: the renewal makes the next change arrive, whenever it lands after it.
    await eventually(async () => {
      await nextHeight();
      return heights.length > 1;
    }, 'a height after the reconnect');
    assert.ok(heights.every((change, index) => index === 0 || change.height > heights[index - 1]!.height));
    await subscription.unsubscribe();
  });
});

test('an acknowledgement that never comes is a ServiceTimeout, not a hang', async () => {
  const http = createServer();
  const silent = new Server(http);
  silent.of('/user/v1').on('connection', (socket) => socket.onAny(() => {}));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = createLnswapClient({ url, timeoutMs: 300, quoteTimeoutMs: 400 });
  try {
    await assert.rejects(client.requestMarketRequirements(), (error: unknown) => {
      assert.ok(error instanceof ServiceTimeout);
      assert.equal(error.timeoutMs, 300);
      return true;
    });
    await assert.rejects(client.requestQuote({ market: 'BTC_LBTC', invoice: 'lnbc1' }), /no answer within 400 ms/);
  } finally {
    client.close();
    await silent.close();
  }
});

test('a service that cannot be reached: each request times out, and each failed attempt is reported', async () => {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  await new Promise((resolve) => http.close(resolve));
  const reported: Error[] = [];
  const client = createLnswapClient({ url, timeoutMs: 300, onError: (error) => reported.push(error) });
  try {
    await assert.rejects(client.requestRefundDetails(UNKNOWN_ORDER_ID), ServiceTimeout);
    assert.ok(reported.length > 0, 'the failed connection attempt');
  } finally {
    client.close();
  }
});

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The provider's Bitcoin quote against a real service over socket.io, the service following the test
 * Bitcoin node: the service takes the HTLC the provider builds (redeem script with the order's claim key,
 * native P2WSH address, refund height) as the order's funding terms, and refuses it when the provider's tip
 * is far from the service's; the provider's claim of it goes out through the service's `broadcastTransaction`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { formatFixedPoint } from '../../../src/domain/amounts.js';
import { htlcPayToAddresses, parseHtlcRedeemScript } from '../../../src/domain/bitcoin.js';
import { decodeInvoice } from '../../../src/domain/invoice.js';
import { quoteBitcoinHtlc } from '../../../src/provider/bitcoin/bitcoin-quote.js';
import { BroadcastRefused } from '../../../src/chains/chain-backend.js';
import { buildBitcoinClaim } from '../../../src/provider/bitcoin/bitcoin-claim.js';
import { ClaimKeys } from '../../../src/provider/keys/claim-keys.js';
import { connectServiceBroadcaster } from '../../../src/provider/service-link/service-broadcaster.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { BOT_PAY_REQ } from '../../support/e2e/bots.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from '../../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, configuration, hex32 } from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import {
  addProvider,
  eventually,
  request,
  startTestService,
  succeed,
  type Ack,
  type Client,
  type TestService,
} from '../../support/ws/harness.js';

const MARKET = 'BTC_LBTC';
const TIMELOCK = 144;

interface QuoteRequest {
  orderId: string;
  invoice: string;
  refundAddress?: string;
  requestExpiryTimestampMs: number;
}

describe("the provider's Bitcoin quote, judged by a real service", () => {
  const keys = ClaimKeys.fromSeed(Buffer.from(hex32('provider seed'), 'hex'));
  const refundAddress = p2wpkhAddress(walletKey(hex32('user refund key')), 'mainnet');
  let node: TestBitcoinNode;
  let running: TestService;
  let provider: Client;
  let user: Client;
  let dir: string;
  let state: ProviderState;
  let providerTip: number = BITCOIN_VIEW.blockHeight;
  const judged: { orderId: string; ack?: Ack; declined?: string }[] = [];

  before(async () => {
    const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
    chain.mine();
    node = await startTestBitcoinNode(chain);
    running = await startTestService('sqlite', {
      configuration: configuration({ markets: [MARKET], providers: [] }),
      engine: { quoteDeadlineMs: 1_000 },
      bitcoin: { esploraUrl: node.esploraUrl, confirmations: 2, pollIntervalMs: 50 },
    });
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-bitcoin-quote-'));
    state = ProviderState.open(join(dir, 'provider.sqlite'));
    const credentials = await addProvider(running.fresh.store, 'daemon', null);
    provider = await running.connect('/provider/v1');
    await succeed(provider, 'authenticate', credentials);
    await succeed(provider, 'activeConfiguration', { [MARKET]: { payReq: BOT_PAY_REQ } });
    await succeed(provider, 'subscribeToQuotes', [MARKET]);
    provider.on('requestQuote', (quoteRequest: QuoteRequest) => {
      void answer(quoteRequest);
    });
    user = await running.connect('/user/v1');
  });
  after(async () => {
    state?.close();
    rmSync(dir, { recursive: true, force: true });
    await running?.close();
    await node?.close();
  });

  async function answer(quoteRequest: QuoteRequest): Promise<void> {
    const invoice = decodeInvoice(quoteRequest.invoice);
    assert.ok(invoice?.amountMillisatoshis !== undefined);
    const quote = quoteBitcoinHtlc(state, keys, {
      orderId: quoteRequest.orderId,
      paymentHash: invoice.paymentHash,
      refundAddress: quoteRequest.refundAddress,
      network: 'mainnet',
      currentHeight: providerTip,
      timelockBlocks: TIMELOCK,
    });
    if ('declined' in quote) {
      judged.push({ orderId: quoteRequest.orderId, declined: quote.declined });
      return;
    }
    const ack = await request(provider, 'makerQuote', {
      orderId: quoteRequest.orderId,
      quoteExpiryTimestampMs: quoteRequest.requestExpiryTimestampMs + 10 * 60_000,
      amount: formatFixedPoint(invoice.amountMillisatoshis / 1000n + 500n, 8),
      details: quote.details,
    });
    judged.push({ orderId: quoteRequest.orderId, ack });
  }

  /** The user's request, answered once the auction is over; and what the provider did with it. */
  async function requestQuote(
    refund: string,
  ): Promise<{ orderId: string; ack?: Ack; declined?: string; userAck: Ack; preimage: string }> {
    const before = judged.length;
    const { invoice, preimage } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7_200 });
    const userAck = await request(user, 'requestQuote', { market: MARKET, invoice, refundAddress: refund });
    await eventually(() => judged.length > before, 'the provider to answer');
    return { ...judged[before]!, userAck, preimage };
  }

  test('the service takes the HTLC as the order: its claim key, its P2WSH address, its refund height', async () => {
    const { orderId, ack, userAck } = await requestQuote(refundAddress);
    assert.deepEqual(ack, { success: true });
    assert.equal(userAck.success, true);
    const order = await running.fresh.store.getOrder(orderId);
    const htlc = state.bitcoinHtlc(orderId);
    assert.ok(order !== undefined && htlc !== undefined);
    assert.equal(order.payToAddress, htlc.payToAddress);
    assert.equal(order.payToAddress, htlcPayToAddresses(htlc.redeemScript, 'mainnet').p2wsh);
    assert.equal(order.htlc.redeemScript, htlc.redeemScript);
    assert.equal(order.htlc.refundableAtBlockHeight, BITCOIN_VIEW.blockHeight + TIMELOCK);
    assert.equal(htlc.quotedHeight, BITCOIN_VIEW.blockHeight);
    assert.equal(parseHtlcRedeemScript(htlc.redeemScript)?.claimPublicKey, keys.publicKey(orderId));
  });

  test("a provider whose tip lags the service's by more than the timelock bounds allow is refused", async () => {
    providerTip = BITCOIN_VIEW.blockHeight - TIMELOCK;
    try {
      const { ack } = await requestQuote(refundAddress);
      assert.deepEqual(ack, { success: false, message: 'TimelockIsOutOfBounds' });
    } finally {
      providerTip = BITCOIN_VIEW.blockHeight;
    }
  });

  test('a refund address the HTLC cannot pay to (P2WSH, P2SH, another network) is declined and nothing written', () => {
    const script = htlcPayToAddresses('51', 'mainnet');
    const elsewhere = p2wpkhAddress(walletKey(hex32('user refund key')), 'testnet');
    for (const address of [script.p2wsh, script.p2sh, elsewhere, undefined]) {
      const orderId = '6f1d0c7e-2b1a-4c3d-8e9f-0a1b2c3d4e5f';
      const quote = quoteBitcoinHtlc(state, keys, {
        orderId,
        paymentHash: hex32('payment'),
        refundAddress: address,
        network: 'mainnet',
        currentHeight: providerTip,
        timelockBlocks: TIMELOCK,
      });
      assert.deepEqual(quote, { declined: 'refund-address-unusable' }, String(address));
      assert.equal(state.bitcoinHtlc(orderId), undefined);
    }
  });

  test("the claim goes out through the service's broadcastTransaction; a refusal comes back as BroadcastRefused", async () => {
    const { orderId, preimage } = await requestQuote(refundAddress);
    const htlc = state.bitcoinHtlc(orderId);
    assert.ok(htlc !== undefined);
    const order = await running.fresh.store.getOrder(orderId);
    assert.ok(order !== undefined);
    const coin = { txId: hex32('user coin'), index: 0, amount: 1_000_000n };
    const funding = buildPayment(
      walletKey(hex32('user wallet')),
      coin,
      [{ address: htlc.payToAddress, amount: order.amount }],
      'mainnet',
    );
    node.chain.submit(funding.toHex());
    node.chain.mine();
    const claimOf = (payoutAddress: string) =>
      buildBitcoinClaim({
        orderId,
        redeemScript: htlc.redeemScript,
        payToAddress: htlc.payToAddress,
        outputs: [{ txId: funding.getId(), outputIndex: 0, amount: order.amount }],
        preimage,
        payoutAddress,
        network: 'mainnet',
        feeRate: 3n,
        keys,
      });
    const broadcaster = await connectServiceBroadcaster({
      serviceUrl: running.service.url,
      onchainTicker: 'BTC',
      ackTimeoutMs: 5_000,
    });
    try {
      const claim = claimOf(p2wpkhAddress(walletKey(hex32('provider payout')), 'mainnet'));
      assert.equal(await broadcaster.broadcast(claim.hex), claim.txId);
      assert.ok(
        node.chain.mempool.some((tx) => tx.getId() === claim.txId),
        'in the node mempool',
      );
      const conflicting = claimOf(p2wpkhAddress(walletKey(hex32('another payout')), 'mainnet'));
      await assert.rejects(
        broadcaster.broadcast(conflicting.hex),
        (error: unknown) => error instanceof BroadcastRefused && error.reason === 'TransactionRejected',
      );
      await assert.rejects(
        broadcaster.broadcast('00'),
        (error: unknown) => error instanceof BroadcastRefused && error.reason === 'InvalidTransaction',
      );
    } finally {
      broadcaster.close();
    }
  });
});

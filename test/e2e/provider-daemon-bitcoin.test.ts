/**
 * The provider daemon on a Bitcoin market, in this process: the test Bitcoin node (Esplora) watched by
 * a real service, a stand-in LND. The user funds the HTLC the daemon quoted (its claim key derived
 * from the seed for this order), the daemon pays once, claims the output to its payout address and the
 * order completes. Through a relay in front of the service, funding details naming the daemon's redeem script
 * with another address are never paid.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { address as bitcoinAddress } from 'bitcoinjs-lib';
import { requestQuote } from '../../examples/user-client.js';
import { parseDecimalAmount } from '../../src/domain/amounts.js';
import { bitcoinJsNetwork } from '../../src/domain/bitcoin.js';
import { openLightningBackend } from '../../src/provider/config/open-lightning-backend.js';
import { parseProviderConfig } from '../../src/provider/config/provider-config.js';
import { startProviderDaemon, type ProviderDaemon } from '../../src/provider/daemon/provider-daemon.js';
import { ProviderState } from '../../src/provider/state/provider-state.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from '../support/bitcoin-wallet.js';
import { configuration, hex32 } from '../support/fixtures.js';
import { HttpRelay } from '../support/http-relay.js';
import { makeInvoice } from '../support/invoices.js';
import type { RunningStandIn } from '../support/lightning/https-stand-in.js';
import { startLndRestStandIn } from '../support/lightning/lnd-rest-stand-in.js';
import { SimulatedPayments } from '../support/lightning/simulated-payments.js';
import { addProvider, eventually, recordingLogger, startTestService, type TestService } from '../support/ws/harness.js';

const MARKET = 'SBTC_LSBTC';
const CONFIRMATIONS = 2;
const MACAROON = Buffer.from('ef'.repeat(16), 'hex');

describe('the provider daemon on a Bitcoin market with a real service', () => {
  const payments = new SimulatedPayments();
  const userKey = walletKey(hex32('daemon bitcoin user'));
  const payoutAddress = p2wpkhAddress(walletKey(hex32('daemon bitcoin payout')), 'simnet');
  let chain: BitcoinTestChain;
  let node: TestBitcoinNode;
  let harness: TestService;
  let lnd: RunningStandIn;
  let dir: string;
  let daemon: ProviderDaemon;
  let relay: HttpRelay;
  const coins: { txId: string; index: number; amount: bigint }[] = [];
  const recorded = recordingLogger();
  const serviceLog = recordingLogger();

  before(async () => {
    chain = new BitcoinTestChain('simnet', 1_000);
    for (let mined = 0; mined < 2; mined += 1) {
      const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(userKey, 'simnet') }).txs[0]!;
      coins.push({ txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value });
    }
    // The service watches from the block after its view's height, and reads the one at that height first.
    chain.mine();
    node = await startTestBitcoinNode(chain, { feeRate: 5 });
    harness = await startTestService('sqlite', {
      configuration: configuration({
        markets: [MARKET],
        chains: { bitcoin: { blockHeight: chain.tipHeight, feeTokensPerVirtualByte: 5 } },
        providers: [],
      }),
      engine: { quoteDeadlineMs: 1_000 },
      logger: serviceLog.logger,
      bitcoin: { esploraUrl: node.esploraUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20 },
    });
    lnd = await startLndRestStandIn(payments, MACAROON.toString('hex'));
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-daemon-bitcoin-'));
    writeFileSync(join(dir, 'tls.cert'), lnd.certificatePem);
    writeFileSync(join(dir, 'admin.macaroon'), MACAROON);
    const file = parseProviderConfig({
      lightning: {
        kind: 'lnd',
        url: lnd.url,
        macaroonFile: join(dir, 'admin.macaroon'),
        tlsCertFile: join(dir, 'tls.cert'),
      },
      inventoryLimitSatoshis: '10000000',
      fundWindowSeconds: 600,
      bitcoin: { payoutAddress, confirmations: CONFIRMATIONS, claimMarginBlocks: 10, timelockBlocks: 40 },
      markets: {
        [MARKET]: {
          rate: { fixed: '1' },
          feeBasisPoints: 50,
          baseFee: '0.00001',
          minimumSatoshis: '1000',
          maximumSatoshis: '1000000',
          minimumInvoiceLifetimeSeconds: 600,
        },
      },
    });
    relay = new HttpRelay(new URL(harness.service.url));
    await relay.start();
    daemon = await startProviderDaemon(
      {
        serviceUrl: relay.url,
        credentials: await addProvider(harness.fresh.store, 'bitcoin-daemon', null),
        stateFile: join(dir, 'provider.sqlite'),
        pollIntervalMs: 20,
        file,
        bitcoin: { node: { esploraUrl: node.esploraUrl }, seed: Buffer.from(hex32('daemon seed'), 'hex') },
      },
      { logger: recorded.logger, lightning: openLightningBackend(file.lightning) },
    );
  });
  after(async () => {
    await daemon?.close();
    await relay?.stop();
    await harness?.close();
    await lnd?.close();
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('funded HTLC -> paid once -> every output claimed to the payout address -> Complete', async () => {
    const user = await harness.connect('/user/v1');
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 50_000n, expirySeconds: 7_200 });
    payments.expect(invoice, 'settle');
    const quote = await requestQuote(user, {
      market: MARKET,
      invoice: invoice.invoice,
      refundAddress: p2wpkhAddress(walletKey(hex32('daemon bitcoin refund')), 'simnet'),
    });
    assert.ok(recorded.lines.some((line) => line.orderId === quote.orderId && line.judgement === 'accepted'));
    const amount = parseDecimalAmount(quote.amount, 8)!;
    assert.equal(amount, 50_000n + 250n + 1_000n, 'the invoice at the rate, the fee in basis points and the base fee');
    const { payToAddress } = quote.details as { payToAddress: string };
    chain.submit(buildPayment(userKey, coins[0]!, [{ address: payToAddress, amount }], 'simnet').toHex());
    for (let block = 0; block < CONFIRMATIONS; block += 1) chain.mine();

    const payout = bitcoinAddress.toOutputScript(payoutAddress, bitcoinJsNetwork('simnet'));
    await eventually(
      () => chain.mempool.some((tx) => tx.outs.some((out) => Buffer.from(out.script).equals(payout))),
      'the claim in the mempool',
    );
    const claim = chain.mempool.find((tx) => tx.outs.some((out) => Buffer.from(out.script).equals(payout)))!;
    assert.ok(claim.outs[0]!.value < amount && claim.outs[0]!.value > amount - 5_000n, 'the output less the fee');
    for (let block = 0; block < CONFIRMATIONS; block += 1) chain.mine();
    await eventually(async () => {
      const response = await fetch(`${harness.service.url}/api/orders/${quote.orderId}/state`);
      return (await response.json()) === 'Complete';
    }, 'Complete');
    assert.equal(payments.sendAttempts.get(invoice.paymentHash), 1);
    const state = ProviderState.open(join(dir, 'provider.sqlite'));
    try {
      await eventually(() => state.claim(quote.orderId)?.state === 'confirmed', 'the claim confirmed');
      assert.equal(state.claim(quote.orderId)?.txId, claim.getId());
      assert.equal(state.payment(invoice.paymentHash)?.reported, true);
    } finally {
      state.close();
    }
  });
  test('funding details with the quoted redeem script and another address: never paid, one error line, the failure reported', async () => {
    const elsewhere = p2wpkhAddress(walletKey(hex32('daemon bitcoin elsewhere')), 'simnet');
    relay.rewrite = (path, body) => {
      const funding = body as { details?: Record<string, unknown> };
      if (!path.endsWith('/fundDetails') || funding.details === undefined) return undefined;
      return { ...funding, details: { ...funding.details, payToAddress: elsewhere } };
    };
    try {
      const user = await harness.connect('/user/v1');
      const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 50_000n, expirySeconds: 7_200 });
      payments.expect(invoice, 'settle');
      const quote = await requestQuote(user, {
        market: MARKET,
        invoice: invoice.invoice,
        refundAddress: p2wpkhAddress(walletKey(hex32('daemon bitcoin refund')), 'simnet'),
      });
      const { payToAddress } = quote.details as { payToAddress: string };
      const amount = parseDecimalAmount(quote.amount, 8)!;
      chain.submit(buildPayment(userKey, coins[1]!, [{ address: payToAddress, amount }], 'simnet').toHex());
      for (let block = 0; block < CONFIRMATIONS; block += 1) chain.mine();
      const state = ProviderState.open(join(dir, 'provider.sqlite'));
      try {
        await eventually(() => state.payment(invoice.paymentHash)?.reported === true, 'the failure reported');
        assert.equal(state.payment(invoice.paymentHash)?.failureReason, 'service-mismatch');
      } finally {
        state.close();
      }
      const errors = recorded.lines.filter((line) => line.orderId === quote.orderId && line.level === 50);
      assert.deepEqual(
        errors.map((line) => line.mismatches),
        [[{ field: 'payToAddress', quoted: payToAddress, answered: elsewhere }]],
      );
      assert.ok(
        serviceLog.lines.some((line) => line.orderId === quote.orderId && line.failedReason === 'PaymentFailed'),
      );
      await eventually(async () => {
        const response = await fetch(`${harness.service.url}/api/orders/${quote.orderId}/state`);
        return (await response.json()) === 'Funded';
      }, 'Funded');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(payments.payment(invoice.paymentHash), undefined, 'nothing sent to the node');
    } finally {
      relay.rewrite = undefined;
    }
  });
});

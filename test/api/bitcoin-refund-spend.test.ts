/**
 * The refund details of a Bitcoin order are worth something only if a wallet can spend them. A real service
 * holds an order made by the real quote flow; a wallet takes nothing but the JSON of
 * `GET /api/orders/:id/refund` and its refund key, builds and signs the refund, and bitcore-lib's script
 * interpreter (not the library that built it) judges it against the funding output with the rules a node
 * enforces. The provider's claim is judged the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestQuote, type Quote } from '../../examples/user-client.js';
import { BITCOIN_VIEW, hex32 } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import {
  buildClaim,
  buildPayment,
  buildRefundFromJson,
  formOfAddress,
  HTLC_FORMS,
  p2wpkhAddress,
  scriptError,
  walletKey,
  type RefundJson,
} from '../support/bitcoin-wallet.js';
import { makerTerms, runBot } from '../support/e2e/bots.js';
import { eventually } from '../support/eventually.js';
import { addProvider, startTestService, type TestService } from '../support/ws/harness.js';
import { MOVE_CAUSE } from '../support/causes.js';

const FEE_RATE = 7;

describe('a Bitcoin refund a node would accept, from the refund JSON alone', () => {
  let harness: TestService;
  const userKey = walletKey(hex32('user wallet key'));
  const refundKey = walletKey(hex32('user refund key'));
  const claimPrivateKey = hex32('maker claim key');

  before(async () => {
    harness = await startTestService('sqlite');
  });
  after(() => harness?.close());

  async function fundedOrder(htlcAddress: 'p2sh' | 'p2wsh', label: string) {
    const { chains } = await harness.fresh.store.getConfiguration();
    await harness.fresh.store.setChainViews({ ...chains, bitcoin: BITCOIN_VIEW });
    const keys = await addProvider(harness.fresh.store, `maker-${label}`);
    const terms = { ...makerTerms(label, 100n, 600_000), claimPrivateKey, htlcAddress };
    const running = await runBot(harness.service.url, keys, terms);
    const user = await harness.connect('/user/v1');
    const { invoice, preimage } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7200 });
    // The order is this test's start, not its subject: an auction its maker missed on a loaded machine is run again.
    let quote: Quote | undefined;
    await eventually(async () => {
      quote = await requestQuote(user as never, {
        market: 'BTC_LBTC',
        invoice,
        refundAddress: p2wpkhAddress(refundKey, 'mainnet'),
      });
    }, 'an order from the maker');
    assert.ok(quote !== undefined);
    running.bot.close();
    const store = harness.fresh.store;
    const order = await store.getOrder(quote.orderId);
    assert.ok(order?.htlc.redeemScript !== undefined);
    const funding = buildPayment(
      userKey,
      { txId: hex32(`coin:${label}`), index: 1, amount: 1_000_000n },
      [{ address: order.payToAddress, amount: order.amount }],
      'mainnet',
    );
    const fund = {
      type: 'FUND' as const,
      id: funding.getId(),
      amount: order.amount,
      outputIndex: 0,
      blockHeight: 612_120,
    };
    assert.ok(
      await store.transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        at: Date.now(),
        transaction: fund,
        cause: MOVE_CAUSE,
      }),
    );
    assert.ok(
      await store.transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTxConfirmation',
        to: 'Funded',
        at: Date.now(),
        cause: MOVE_CAUSE,
      }),
    );
    const fundingOutput = { script: funding.outs[0]!.script, amount: order.amount };
    return { order, redeemScript: order.htlc.redeemScript, preimage, funding, fundingOutput };
  }

  async function refundJsonAt(orderId: string, blockHeight: number): Promise<RefundJson> {
    const { chains } = await harness.fresh.store.getConfiguration();
    await harness.fresh.store.setChainViews({ ...chains, bitcoin: { blockHeight, feeTokensPerVirtualByte: FEE_RATE } });
    const response = await fetch(`${harness.service.url}/api/orders/${orderId}/refund`);
    assert.equal(response.status, 200);
    return (await response.json()) as RefundJson;
  }

  for (const htlcAddress of ['p2sh', 'p2wsh'] as const) {
    test(`${htlcAddress}: the refund passes at the refundable height, fails one block earlier, and only in the funded form`, async () => {
      const { order, redeemScript, funding, fundingOutput } = await fundedOrder(htlcAddress, `refund-${htlcAddress}`);
      const refundableAt = order.htlc.refundableAtBlockHeight;
      assert.equal(refundableAt, BITCOIN_VIEW.blockHeight + 144);
      const form = formOfAddress(redeemScript, order.payToAddress, 'mainnet');
      assert.equal(form, htlcAddress);

      const json = await refundJsonAt(order.id, refundableAt);
      assert.equal(json.refundableAtBlockHeight, refundableAt);
      assert.deepEqual(json.details.utxos, [{ txId: funding.getId(), index: 0, tokens: Number(order.amount) }]);

      const refund = buildRefundFromJson(json, refundKey, form);
      assert.equal(scriptError(refund.toHex(), 0, fundingOutput), '');
      // Final in the block after the refundable height: a node takes it into its mempool as soon as its tip is there.
      assert.ok(refund.locktime <= json.details.currentBlockHeight);
      const paid = refund.outs[0]!.value;
      const fee = order.amount - paid;
      // The fee is priced on a first signing; a DER signature's length may differ by a byte or two in the second.
      const rate = Number(fee) / refund.virtualSize();
      assert.ok(
        Math.abs(rate - FEE_RATE) * refund.virtualSize() <= 2 * FEE_RATE,
        `fee ${fee} for ${refund.virtualSize()} vbytes`,
      );

      const early = buildRefundFromJson(json, refundKey, form, refundableAt - 1);
      assert.match(scriptError(early.toHex(), 0, fundingOutput), /LOCKTIME/i);

      const stranger = buildRefundFromJson(json, walletKey(hex32('someone else')), form);
      assert.notEqual(scriptError(stranger.toHex(), 0, fundingOutput), '');
      for (const other of HTLC_FORMS.filter((candidate) => candidate !== form)) {
        assert.notEqual(scriptError(buildRefundFromJson(json, refundKey, other).toHex(), 0, fundingOutput), '', other);
      }
    });

    test(`${htlcAddress}: the claim with the preimage passes, with a wrong preimage it fails`, async () => {
      const { order, redeemScript, preimage, funding, fundingOutput } = await fundedOrder(
        htlcAddress,
        `claim-${htlcAddress}`,
      );
      const form = formOfAddress(redeemScript, order.payToAddress, 'mainnet');
      const outpoint = { txId: funding.getId(), index: 0, amount: order.amount };
      const claimKey = walletKey(claimPrivateKey);
      const claim = buildClaim(redeemScript, form, [outpoint], preimage, claimKey, 'mainnet');
      assert.equal(scriptError(claim.toHex(), 0, fundingOutput), '');
      const wrong = buildClaim(redeemScript, form, [outpoint], hex32('not the preimage'), claimKey, 'mainnet');
      assert.notEqual(scriptError(wrong.toHex(), 0, fundingOutput), '');
      const thief = buildClaim(redeemScript, form, [outpoint], preimage, walletKey(hex32('thief')), 'mainnet');
      assert.notEqual(scriptError(thief.toHex(), 0, fundingOutput), '');
    });
  }
});

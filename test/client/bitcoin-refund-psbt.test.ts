/**
 * The refund PSBT of a Bitcoin order, built by the library from the refund details alone, signed by a test key with
 * bitcoinjs-lib's ordinary PSBT signing and judged by bitcore-lib's script interpreter (a second implementation)
 * against the funding output, with the rules a node enforces: spendable at the refund height, refused one block
 * before it, and refused when signed by any key but the refund key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { payments, Psbt, Transaction } from 'bitcoinjs-lib';
import {
  bitcoinRefundPsbt,
  createLnswapClient,
  finalizeBitcoinRefund,
  type LnswapClient,
} from '../../src/client/index.js';
import {
  buildPayment,
  htlcOutputScript,
  p2wpkhAddress,
  psbtSigner,
  scriptError,
  walletKey,
  type WalletKey,
} from '../support/bitcoin-wallet.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { makerTerms, runBot } from '../support/e2e/bots.js';
import { BITCOIN_VIEW, hex32 } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { addProvider, startTestService, type TestService } from '../support/ws/harness.js';

const FEE_RATE = 7;

function p2wpkhOutput(key: WalletKey): Uint8Array {
  return payments.p2wpkh({ pubkey: key.publicKey }).output!;
}

describe('a Bitcoin refund PSBT from the refund details alone, as a node would judge it', () => {
  let harness: TestService;
  let client: LnswapClient;
  const userKey = walletKey(hex32('psbt user wallet key'));
  const refundKey = walletKey(hex32('psbt user refund key'));
  const refundAddress = p2wpkhAddress(refundKey, 'mainnet');

  before(async () => {
    harness = await startTestService('sqlite');
    client = createLnswapClient({ url: harness.service.url, timeoutMs: 5_000 });
  });
  after(async () => {
    client?.close();
    await harness?.close();
  });

  /** An order quoted by a maker whose HTLC takes `form`, funded by a payment the store records as confirmed. */
  async function fundedOrder(form: 'p2wsh' | 'p2sh', label: string) {
    const { chains } = await harness.fresh.store.getConfiguration();
    await harness.fresh.store.setChainViews({ ...chains, bitcoin: BITCOIN_VIEW });
    const keys = await addProvider(harness.fresh.store, `psbt-${label}`);
    const running = await runBot(harness.service.url, keys, { ...makerTerms(label, 100n, 600_000), htlcAddress: form });
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7_200 });
    const quote = await client.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress });
    running.bot.close();
    assert.ok('payToAddress' in quote.details);
    const order = await client.order(quote.orderId);
    const amount = BigInt(Math.round(Number(order.amount) * 1e8));
    const funding = buildPayment(
      userKey,
      { txId: hex32(`psbt coin:${label}`), index: 1, amount: 1_000_000n },
      [{ address: quote.details.payToAddress, amount }],
      'mainnet',
    );
    const fund = { type: 'FUND' as const, id: funding.getId(), amount, outputIndex: 0, blockHeight: 612_120 };
    const move = { orderId: order.id, at: Date.now(), cause: MOVE_CAUSE };
    assert.ok(
      await harness.service.transitions.apply({
        ...move,
        from: 'WaitingForFundingTx',
        to: 'WaitingForFundingTxConfirmation',
        transaction: fund,
      }),
    );
    assert.ok(
      await harness.service.transitions.apply({ ...move, from: 'WaitingForFundingTxConfirmation', to: 'Funded' }),
    );
    return {
      orderId: order.id,
      payToAddress: quote.details.payToAddress,
      refundableAt: quote.details.refundableAtBlockHeight,
      funding,
      spent: { script: htlcOutputScript(quote.details.redeemScript, form), amount },
    };
  }

  async function refundDetailsAt(orderId: string, blockHeight: number) {
    const { chains } = await harness.fresh.store.getConfiguration();
    await harness.fresh.store.setChainViews({ ...chains, bitcoin: { blockHeight, feeTokensPerVirtualByte: FEE_RATE } });
    return client.requestRefundDetails(orderId);
  }

  test('P2WSH: signed by the refund key it spends at the refund height, one block earlier it does not', async () => {
    const { orderId, payToAddress, refundableAt, funding, spent } = await fundedOrder('p2wsh', 'p2wsh');
    const details = await refundDetailsAt(orderId, refundableAt);
    assert.deepEqual('blocksRemaining' in details && details.blocksRemaining, 0);

    const refund = bitcoinRefundPsbt(details, { payToAddress });
    assert.equal(refund.form, 'p2wsh');
    assert.equal(refund.lockTime, refundableAt);
    assert.equal(refund.amount + refund.fee, spent.amount);
    // The PSBT travels as BIP 174 text: what the wallet receives is what it signs.
    const received = Psbt.fromBase64(refund.psbt.toBase64());
    received.signAllInputs(psbtSigner(refundKey));
    const signedHex = finalizeBitcoinRefund(received);
    assert.equal(scriptError(signedHex, 0, spent), '');
    const tx = Transaction.fromHex(signedHex);
    assert.deepEqual(
      tx.ins.map((input) => [Buffer.from(input.hash).reverse().toString('hex'), input.index]),
      [[funding.getId(), 0]],
    );
    assert.deepEqual(
      tx.outs.map((output) => [Buffer.from(output.script).toString('hex'), output.value]),
      [[Buffer.from(p2wpkhOutput(refundKey)).toString('hex'), refund.amount]],
    );
    // Priced for the longest signature, so at least the rate asked, and at most a few bytes' worth over it.
    const paidRate = Number(refund.fee) / tx.virtualSize();
    assert.ok(paidRate >= FEE_RATE && paidRate <= FEE_RATE * 1.05, `${refund.fee} sat for ${tx.virtualSize()} vbytes`);

    // Details read ten blocks early lock the refund just the same: nothing can be spent before its height.
    const early = await refundDetailsAt(orderId, refundableAt - 10);
    assert.equal(bitcoinRefundPsbt(early, { payToAddress }).lockTime, refundableAt);

    const tooEarly = bitcoinRefundPsbt(details, { payToAddress, lockTime: refundableAt - 1 }).psbt;
    tooEarly.signAllInputs(psbtSigner(refundKey));
    assert.match(scriptError(finalizeBitcoinRefund(tooEarly), 0, spent), /LOCKTIME/i);

    const stranger = bitcoinRefundPsbt(details, { payToAddress }).psbt;
    // bitcoinjs signs only for a key the script names; a stranger's signature under the refund key is what remains.
    const strangerKey = walletKey(hex32('someone else'));
    stranger.signAllInputs({ ...psbtSigner(strangerKey), publicKey: refundKey.publicKey });
    assert.notEqual(scriptError(finalizeBitcoinRefund(stranger), 0, spent), '');
  });

  test('legacy P2SH: the same from the details and the funding transaction BIP 174 asks for', async () => {
    const { orderId, payToAddress, refundableAt, funding, spent } = await fundedOrder('p2sh', 'p2sh');
    const details = await refundDetailsAt(orderId, refundableAt);
    assert.throws(() => bitcoinRefundPsbt(details, { payToAddress }), /needs its funding transaction/);
    const refund = bitcoinRefundPsbt(details, {
      payToAddress,
      fundingTransactionsHex: { [funding.getId()]: funding.toHex() },
    });
    assert.equal(refund.form, 'p2sh');
    refund.psbt.signAllInputs(psbtSigner(refundKey));
    assert.equal(scriptError(finalizeBitcoinRefund(refund.psbt), 0, spent), '');
  });

  test('an address of another script, or Ethereum details, build no PSBT', async () => {
    const { orderId, refundableAt } = await fundedOrder('p2wsh', 'mismatch');
    const details = await refundDetailsAt(orderId, refundableAt);
    assert.throws(
      () => bitcoinRefundPsbt(details, { payToAddress: refundAddress }),
      /not an address of the redeem script/,
    );
    assert.throws(
      () => bitcoinRefundPsbt({ ...details, details: { to: `0x${'11'.repeat(20)}`, data: '0x' } }),
      /Ethereum transaction/,
    );
  });
});

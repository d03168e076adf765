import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LightningNodeError } from '../../../src/chains/lightning/lightning-backend.js';
import { ClnRestBackend } from '../../../src/chains/lightning/cln-rest-backend.js';
import { makeInvoice, TEST_NODE_PUBLIC_KEY } from '../../support/invoices.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import {
  CLN_STAND_IN_BLOCK_HEIGHT,
  CLN_STAND_IN_PUBLIC_KEY,
  startClnRestStandIn,
} from '../../support/lightning/cln-rest-stand-in.js';
import { makeSelfSignedCertificate } from '../../support/lightning/self-signed-certificate.js';
import { SimulatedPayments } from '../../support/lightning/simulated-payments.js';

/** Runes are base64url strings; this one is only a shared secret to the stand-in. */
const RUNE = 'tU-RLjMiDpY2U0o3W1oFowar36RFGpWloPbW9-RuZdo9MyZpZD0wMjRiOWE';

describe('Core Lightning REST backend against the stand-in clnrest', () => {
  const payments = new SimulatedPayments();
  let node: RunningStandIn;
  let cln: ClnRestBackend;
  /** Gives up on a call after 1 s, to see a payment still in flight (long enough for a loaded machine to deliver it first). */
  let impatientCln: ClnRestBackend;

  before(async () => {
    node = await startClnRestStandIn(payments, RUNE);
    cln = new ClnRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      rune: RUNE,
      timeoutMs: 5_000,
    });
    impatientCln = new ClnRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      rune: RUNE,
      timeoutMs: 1_000,
    });
  });
  after(() => node.close());

  const invoiceFor = (behaviour: Parameters<SimulatedPayments['expect']>[1], amountSatoshis = 50_000n) => {
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis });
    payments.expect(invoice, behaviour);
    return invoice;
  };

  test('getinfo: the node key, its network as lnswap names it, height and sync', async () => {
    assert.deepEqual(await cln.getInfo(), {
      publicKey: CLN_STAND_IN_PUBLIC_KEY,
      network: 'simnet',
      blockHeight: CLN_STAND_IN_BLOCK_HEIGHT,
      synced: true,
    });
  });

  test('the spendable balance counts active, connected channels only', async () => {
    assert.equal(await cln.spendableMillisatoshis(), payments.spendableMillisatoshis);
  });

  test('a route estimate gives the fee and the blocks locked; no route reads as undefined', async () => {
    assert.deepEqual(await cln.estimateRoute(TEST_NODE_PUBLIC_KEY, 50_000_000n), {
      feeMillisatoshis: payments.routeFeeMillisatoshis,
      timeLockDelta: 80,
    });
    assert.equal(await cln.estimateRoute('03' + '22'.repeat(32), 50_000_000n), undefined);
    assert.equal(await cln.estimateRoute(TEST_NODE_PUBLIC_KEY, payments.spendableMillisatoshis * 2n), undefined);
  });

  test('a settled payment gives the preimage and the fee paid', async () => {
    const invoice = invoiceFor('settle');
    const outcome = await cln.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 });
    assert.deepEqual(outcome, {
      kind: 'succeeded',
      preimage: invoice.preimage,
      feeMillisatoshis: payments.routeFeeMillisatoshis,
    });
    assert.deepEqual(await cln.lookupPayment(invoice.paymentHash), outcome);
  });

  test('no route, insufficient balance, a fee above the limit and a search timeout are failures with their reason', async () => {
    const pay = (invoice: string, fee = 5_000n) => cln.pay({ invoice, feeLimitMillisatoshis: fee, timeoutSeconds: 1 });
    assert.deepEqual(await pay(invoiceFor('no-route').invoice), { kind: 'failed', reason: 'no-route' });
    const tooLarge = invoiceFor('settle', payments.spendableMillisatoshis / 1000n + 1n);
    assert.deepEqual(await pay(tooLarge.invoice), { kind: 'failed', reason: 'insufficient-balance' });
    assert.deepEqual(await pay(invoiceFor('settle').invoice, 10n), { kind: 'failed', reason: 'fee-limit-exceeded' });
    assert.deepEqual(await pay(invoiceFor('keep-searching').invoice), { kind: 'failed', reason: 'timeout' });
  });

  test('in flight then settled: looked up by hash, never sent twice, and the preimage found', async () => {
    const invoice = invoiceFor('hold');
    const request = { invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 };
    assert.deepEqual(await impatientCln.pay(request), { kind: 'pending' });
    assert.deepEqual(await cln.lookupPayment(invoice.paymentHash), { kind: 'pending' });
    assert.deepEqual(
      await cln.pay(request),
      { kind: 'pending' },
      'pay answers a hash in progress with PAY_IN_PROGRESS',
    );
    payments.settle(invoice.paymentHash);
    const settled = { kind: 'succeeded', preimage: invoice.preimage, feeMillisatoshis: payments.routeFeeMillisatoshis };
    assert.deepEqual(await cln.lookupPayment(invoice.paymentHash), settled);
    assert.deepEqual(await cln.pay(request), settled, 'pay answers an invoice already paid with the first payment');
    assert.equal(payments.sendAttempts.get(invoice.paymentHash), 1);
  });

  test('in flight then failed: the lookup reports the failure', async () => {
    const invoice = invoiceFor('hold');
    assert.deepEqual(
      await impatientCln.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
      { kind: 'pending' },
    );
    payments.fail(invoice.paymentHash);
    assert.deepEqual(await cln.lookupPayment(invoice.paymentHash), { kind: 'failed', reason: 'error' });
  });

  test('a hash the node never paid is unknown', async () => {
    assert.deepEqual(await cln.lookupPayment('ee'.repeat(32)), { kind: 'unknown' });
  });

  test('a wrong or missing rune is refused as unauthorized, and the error does not carry it', async () => {
    const wrong = 'zz' + RUNE.slice(2);
    const intruder = new ClnRestBackend({ url: node.url, certificatePem: node.certificatePem, rune: wrong });
    const isUnauthorized = (error: unknown) => {
      assert.ok(error instanceof LightningNodeError);
      assert.equal(error.fault, 'unauthorized');
      assert.doesNotMatch(error.message, new RegExp(wrong.slice(2)));
      return true;
    };
    await assert.rejects(intruder.getInfo(), isUnauthorized);
    const invoice = invoiceFor('settle');
    await assert.rejects(
      intruder.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
      isUnauthorized,
    );
    const anonymous = new ClnRestBackend({ url: node.url, certificatePem: node.certificatePem, rune: '' });
    await assert.rejects(anonymous.getInfo(), isUnauthorized);
    assert.equal(payments.payment(invoice.paymentHash), undefined);
  });

  test('a node presenting another certificate than the pinned one is not talked to', async () => {
    const other = makeSelfSignedCertificate();
    const misled = new ClnRestBackend({
      url: node.url,
      certificatePem: other.certificatePem,
      rune: RUNE,
    });
    await assert.rejects(
      misled.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'unreachable',
    );
  });

  test('an answer larger than the cap is refused', async () => {
    const capped = new ClnRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      rune: RUNE,
      maxResponseBytes: 64,
    });
    await assert.rejects(
      capped.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'too-large',
    );
  });
});

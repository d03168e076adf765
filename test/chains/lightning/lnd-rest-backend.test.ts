import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LightningNodeError } from '../../../src/chains/lightning/lightning-backend.js';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import { makeInvoice, TEST_NODE_PUBLIC_KEY } from '../../support/invoices.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import {
  LND_STAND_IN_BLOCK_HEIGHT,
  LND_STAND_IN_PUBLIC_KEY,
  startLndRestStandIn,
} from '../../support/lightning/lnd-rest-stand-in.js';
import { makeSelfSignedCertificate } from '../../support/lightning/self-signed-certificate.js';
import { SimulatedPayments } from '../../support/lightning/simulated-payments.js';

const MACAROON_HEX = '0201036c6e640258030a10' + 'ab'.repeat(40);

describe('LND REST backend against the stand-in LND', () => {
  const payments = new SimulatedPayments();
  let node: RunningStandIn;
  let lnd: LndRestBackend;
  /** Gives up on a call after 1 s, to see a payment still in flight (long enough for a loaded machine to deliver it first). */
  let impatientLnd: LndRestBackend;

  before(async () => {
    node = await startLndRestStandIn(payments, MACAROON_HEX);
    lnd = new LndRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      macaroonHex: MACAROON_HEX,
      timeoutMs: 5_000,
    });
    impatientLnd = new LndRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      macaroonHex: MACAROON_HEX,
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
    assert.deepEqual(await lnd.getInfo(), {
      publicKey: LND_STAND_IN_PUBLIC_KEY,
      network: 'simnet',
      blockHeight: LND_STAND_IN_BLOCK_HEIGHT,
      synced: true,
    });
  });

  test('the channel balance is read in millisatoshis', async () => {
    assert.equal(await lnd.spendableMillisatoshis(), payments.spendableMillisatoshis);
  });

  test('a route estimate gives the fee and the blocks locked; no route reads as undefined', async () => {
    assert.deepEqual(await lnd.estimateRoute(TEST_NODE_PUBLIC_KEY, 50_000_000n), {
      feeMillisatoshis: payments.routeFeeMillisatoshis,
      timeLockDelta: 80,
    });
    assert.equal(await lnd.estimateRoute('03' + '22'.repeat(32), 50_000_000n), undefined);
    assert.equal(await lnd.estimateRoute(TEST_NODE_PUBLIC_KEY, payments.spendableMillisatoshis * 2n), undefined);
  });

  test('a settled payment gives the preimage and the fee paid', async () => {
    const invoice = invoiceFor('settle');
    const outcome = await lnd.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 });
    assert.deepEqual(outcome, {
      kind: 'succeeded',
      preimage: invoice.preimage,
      feeMillisatoshis: payments.routeFeeMillisatoshis,
    });
    assert.deepEqual(await lnd.lookupPayment(invoice.paymentHash), outcome);
  });

  test('no route, insufficient balance, a fee above the limit and a search timeout are failures with their reason', async () => {
    const pay = (invoice: string, fee = 5_000n) => lnd.pay({ invoice, feeLimitMillisatoshis: fee, timeoutSeconds: 1 });
    assert.deepEqual(await pay(invoiceFor('no-route').invoice), { kind: 'failed', reason: 'no-route' });
    const tooLarge = invoiceFor('settle', payments.spendableMillisatoshis / 1000n + 1n);
    assert.deepEqual(await pay(tooLarge.invoice), { kind: 'failed', reason: 'insufficient-balance' });
    assert.deepEqual(await pay(invoiceFor('settle').invoice, 10n), { kind: 'failed', reason: 'no-route' });
    assert.deepEqual(await pay(invoiceFor('keep-searching').invoice), { kind: 'failed', reason: 'timeout' });
  });

  test('in flight then settled: looked up by hash, never sent twice, and the preimage found', async () => {
    const invoice = invoiceFor('hold');
    const request = { invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 };
    assert.deepEqual(await impatientLnd.pay(request), { kind: 'pending' });
    assert.deepEqual(await lnd.lookupPayment(invoice.paymentHash), { kind: 'pending' });
    assert.deepEqual(await lnd.pay(request), { kind: 'pending' }, 'LND refuses a hash in transition');
    payments.settle(invoice.paymentHash);
    const settled = { kind: 'succeeded', preimage: invoice.preimage, feeMillisatoshis: payments.routeFeeMillisatoshis };
    assert.deepEqual(await lnd.lookupPayment(invoice.paymentHash), settled);
    assert.deepEqual(await lnd.pay(request), settled, 'an invoice already paid answers with the first payment');
    assert.equal(payments.sendAttempts.get(invoice.paymentHash), 1);
  });

  test('in flight then failed: the lookup reports the failure', async () => {
    const invoice = invoiceFor('hold');
    assert.deepEqual(
      await impatientLnd.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
      { kind: 'pending' },
    );
    payments.fail(invoice.paymentHash);
    assert.deepEqual(await lnd.lookupPayment(invoice.paymentHash), { kind: 'failed', reason: 'no-route' });
  });

  test('a hash the node never paid is unknown', async () => {
    assert.deepEqual(await lnd.lookupPayment('ee'.repeat(32)), { kind: 'unknown' });
  });

  test('a wrong macaroon is refused as unauthorized, and the error does not carry it', async () => {
    const wrong = 'cd'.repeat(40);
    const intruder = new LndRestBackend({ url: node.url, certificatePem: node.certificatePem, macaroonHex: wrong });
    const isUnauthorized = (error: unknown) => {
      assert.ok(error instanceof LightningNodeError);
      assert.equal(error.fault, 'unauthorized');
      assert.doesNotMatch(error.message, new RegExp(wrong));
      return true;
    };
    await assert.rejects(intruder.getInfo(), isUnauthorized);
    const invoice = invoiceFor('settle');
    await assert.rejects(
      intruder.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
      isUnauthorized,
    );
    assert.equal(payments.payment(invoice.paymentHash), undefined);
  });

  test('a node presenting another certificate than the pinned one is not talked to', async () => {
    const other = makeSelfSignedCertificate();
    const misled = new LndRestBackend({
      url: node.url,
      certificatePem: other.certificatePem,
      macaroonHex: MACAROON_HEX,
    });
    await assert.rejects(
      misled.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'unreachable',
    );
  });

  test('an answer larger than the cap is refused', async () => {
    const capped = new LndRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      macaroonHex: MACAROON_HEX,
      maxResponseBytes: 64,
    });
    await assert.rejects(
      capped.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'too-large',
    );
  });
});

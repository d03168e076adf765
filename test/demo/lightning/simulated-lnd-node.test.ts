/**
 * The demo's simulated LND node, driven by the provider daemon's own LND REST backend: what the daemon reads of it
 * (network, balance, a route to the payee), a payment settled once with the payee's preimage, a second payment to
 * the same invoice refused by the node and answered with the first one's outcome, the payee's refusal as a failure,
 * and the TLS certificate and macaroon checked as LND checks them.
 */
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { LightningNodeError } from '../../../src/chains/lightning/lightning-backend.js';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import { makeSelfSignedCertificate } from '../../../src/demo/lightning/self-signed-certificate.js';
import { SimulatedLightningPayee, type PaymentReceived } from '../../../src/demo/lightning/simulated-lightning-payee.js';
import { startSimulatedLndNode, type SimulatedLndNode } from '../../../src/demo/lightning/simulated-lnd-node.js';

describe('the demo simulated LND node', () => {
  const received: PaymentReceived[] = [];
  const payee = new SimulatedLightningPayee((payment) => received.push(payment));
  let node: SimulatedLndNode;
  let backend: LndRestBackend;

  before(async () => {
    node = await startSimulatedLndNode(payee);
    backend = new LndRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      macaroonHex: node.macaroon.toString('hex'),
    });
  });
  after(async () => {
    await node?.close();
  });

  test('its certificate is a fresh self-signed one for 127.0.0.1 that verifies with its own key', () => {
    const certificate = new X509Certificate(node.certificatePem);
    assert.ok(certificate.verify(certificate.publicKey));
    assert.match(certificate.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    assert.notEqual(makeSelfSignedCertificate(60_000).certificatePem, node.certificatePem);
  });

  test('the daemon reads a synced simnet node with 0.1 BTC to spend and a route to the payee', async () => {
    const info = await backend.getInfo();
    assert.equal(info.network, 'simnet');
    assert.equal(info.synced, true);
    assert.equal(await backend.spendableMillisatoshis(), 10_000_000_000n);
    assert.deepEqual(await backend.estimateRoute(payee.publicKey, 21_000_000n), {
      feeMillisatoshis: 1_000n,
      timeLockDelta: 80,
    });
    assert.equal(await backend.estimateRoute('02' + '55'.repeat(32), 21_000_000n), undefined);
  });

  test('a payment settles with the preimage once; paying the invoice again is refused and answered with the first outcome', async () => {
    const { invoice, paymentHash } = payee.createInvoice(21_000, true);
    const request = { invoice, feeLimitMillisatoshis: 10_000n, timeoutSeconds: 30 };
    const outcome = await backend.pay(request);
    assert.equal(outcome.kind, 'succeeded');
    const preimage = outcome.kind === 'succeeded' ? outcome.preimage : '';
    assert.equal(createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex'), paymentHash);
    assert.deepEqual(await backend.pay(request), outcome);
    assert.deepEqual(await backend.lookupPayment(paymentHash), outcome);
    assert.deepEqual(
      received.filter((payment) => payment.paymentHash === paymentHash),
      [{ paymentHash, amountMillisatoshis: 21_000_000n, count: 1, settled: true }],
    );
    assert.equal(await backend.spendableMillisatoshis(), 10_000_000_000n - 21_001_000n);
  });

  test('an invoice the payee refuses fails with its reason; an unknown hash is unknown', async () => {
    const { invoice, paymentHash } = payee.createInvoice(22_000, false);
    const failed = { kind: 'failed', reason: 'incorrect-payment-details' };
    assert.deepEqual(await backend.pay({ invoice, feeLimitMillisatoshis: 10_000n, timeoutSeconds: 30 }), failed);
    assert.deepEqual(await backend.lookupPayment(paymentHash), failed);
    assert.deepEqual(await backend.lookupPayment('ab'.repeat(32)), { kind: 'unknown' });
  });

  test('a wrong macaroon is refused as unauthorized, another certificate is not trusted', async () => {
    const wrongMacaroon = new LndRestBackend({
      url: node.url,
      certificatePem: node.certificatePem,
      macaroonHex: 'ab'.repeat(32),
    });
    await assert.rejects(
      wrongMacaroon.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'unauthorized',
    );
    const otherCertificate = new LndRestBackend({
      url: node.url,
      certificatePem: makeSelfSignedCertificate(60_000).certificatePem,
      macaroonHex: node.macaroon.toString('hex'),
    });
    await assert.rejects(
      otherCertificate.getInfo(),
      (error: unknown) => error instanceof LightningNodeError && error.fault === 'certificate-mismatch',
    );
  });
});

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  LightningNodeError,
  type LightningBackend,
  type PaymentFailureReason,
} from '../../../src/chains/lightning/lightning-backend.js';
import { makeInvoice, TEST_NODE_PUBLIC_KEY } from '../invoices.js';
import { startHttpsStandIn, type RunningStandIn } from './https-stand-in.js';
import { makeSelfSignedCertificate } from './self-signed-certificate.js';
import { SimulatedPayments } from './simulated-payments.js';

/** How a backend is made: its node, a certificate, a credential (the good one when absent) and limits. */
export interface BackendConnection {
  node: RunningStandIn;
  certificatePem?: string;
  credential?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** The files the certificate and the credential are said to come from, for errors. */
  files?: { certificate: string; credential: string };
}

/** What differs between LND and Core Lightning in the one set of tests both backends pass. */
export interface BackendSpec {
  title: string;
  startStandIn(payments: SimulatedPayments): Promise<RunningStandIn>;
  connect(connection: BackendConnection): LightningBackend;
  standInPublicKey: string;
  standInBlockHeight: number;
  balanceTitle: string;
  /** What a fee above the limit reads as. */
  feeLimitReason: PaymentFailureReason;
  /** What a failure found by lookup reads as (Core Lightning's listpays does not say why). */
  lookedUpFailureReason: PaymentFailureReason;
  inTransitionMessage: string;
  alreadyPaidMessage: string;
  credentialTitle: string;
  /** Credentials the node must refuse; the first is checked never to appear in an error. */
  wrongCredentials: readonly string[];
  /** The part of a wrong credential an error must not carry. */
  secretPartOf(credential: string): string;
}

/** Configuration file names the errors must name (never the files' contents). */
const FILES = { certificate: '/etc/lnswap/node-tls.cert', credential: '/etc/lnswap/provider.credential' };

/** Each backend against its stand-in: real TLS, real invoices, the simulated network's failure modes. */
export function describeBackendAgainstStandIn(spec: BackendSpec): void {
  describe(spec.title, () => {
    const payments = new SimulatedPayments();
    let node: RunningStandIn;
    let backend: LightningBackend;
    /** Gives up on a call after 1 s, to see a payment still in flight (long enough for a loaded machine to deliver it first). */
    let impatient: LightningBackend;

    before(async () => {
      node = await spec.startStandIn(payments);
      backend = spec.connect({ node, timeoutMs: 5_000 });
      impatient = spec.connect({ node, timeoutMs: 1_000 });
    });
    after(() => node.close());

    const invoiceFor = (behaviour: Parameters<SimulatedPayments['expect']>[1], amountSatoshis = 50_000n) => {
      const invoice = makeInvoice({ network: 'simnet', amountSatoshis });
      payments.expect(invoice, behaviour);
      return invoice;
    };

    test('getinfo: the node key, its network as lnswap names it, height and sync', async () => {
      assert.deepEqual(await backend.getInfo(), {
        publicKey: spec.standInPublicKey,
        network: 'simnet',
        blockHeight: spec.standInBlockHeight,
        synced: true,
      });
    });

    test(spec.balanceTitle, async () => {
      assert.equal(await backend.spendableMillisatoshis(), payments.spendableMillisatoshis);
    });

    test('a route estimate gives the fee and the blocks locked; no route reads as undefined', async () => {
      assert.deepEqual(await backend.estimateRoute(TEST_NODE_PUBLIC_KEY, 50_000_000n), {
        feeMillisatoshis: payments.routeFeeMillisatoshis,
        timeLockDelta: 80,
      });
      assert.equal(await backend.estimateRoute('03' + '22'.repeat(32), 50_000_000n), undefined);
      assert.equal(await backend.estimateRoute(TEST_NODE_PUBLIC_KEY, payments.spendableMillisatoshis * 2n), undefined);
    });

    test('a settled payment gives the preimage, the fee paid and the amount delivered', async () => {
      const invoice = invoiceFor('settle');
      const outcome = await backend.pay({
        invoice: invoice.invoice,
        feeLimitMillisatoshis: 5_000n,
        timeoutSeconds: 30,
      });
      assert.deepEqual(outcome, {
        kind: 'succeeded',
        preimage: invoice.preimage,
        feeMillisatoshis: payments.routeFeeMillisatoshis,
        amountMillisatoshis: 50_000_000n,
      });
      assert.deepEqual(await backend.lookupPayment(invoice.paymentHash), outcome);
    });

    test('no route, insufficient balance, a fee above the limit and a search timeout are failures with their reason', async () => {
      const pay = (invoice: string, fee = 5_000n) =>
        backend.pay({ invoice, feeLimitMillisatoshis: fee, timeoutSeconds: 1 });
      assert.deepEqual(await pay(invoiceFor('no-route').invoice), { kind: 'failed', reason: 'no-route' });
      const tooLarge = invoiceFor('settle', payments.spendableMillisatoshis / 1000n + 1n);
      assert.deepEqual(await pay(tooLarge.invoice), { kind: 'failed', reason: 'insufficient-balance' });
      assert.deepEqual(await pay(invoiceFor('settle').invoice, 10n), { kind: 'failed', reason: spec.feeLimitReason });
      assert.deepEqual(await pay(invoiceFor('keep-searching').invoice), { kind: 'failed', reason: 'timeout' });
    });

    test('in flight then settled: looked up by hash, never sent twice, and the preimage found', async () => {
      const invoice = invoiceFor('hold');
      const request = { invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 };
      assert.deepEqual(await impatient.pay(request), { kind: 'pending' });
      assert.deepEqual(await backend.lookupPayment(invoice.paymentHash), { kind: 'pending' });
      assert.deepEqual(await backend.pay(request), { kind: 'pending' }, spec.inTransitionMessage);
      payments.settle(invoice.paymentHash);
      const settled = {
        kind: 'succeeded',
        preimage: invoice.preimage,
        feeMillisatoshis: payments.routeFeeMillisatoshis,
        amountMillisatoshis: 50_000_000n,
      };
      assert.deepEqual(await backend.lookupPayment(invoice.paymentHash), settled);
      assert.deepEqual(await backend.pay(request), settled, spec.alreadyPaidMessage);
      assert.equal(payments.sendAttempts.get(invoice.paymentHash), 1);
    });

    test('in flight then failed: the lookup reports the failure', async () => {
      const invoice = invoiceFor('hold');
      assert.deepEqual(
        await impatient.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
        { kind: 'pending' },
      );
      payments.fail(invoice.paymentHash);
      assert.deepEqual(await backend.lookupPayment(invoice.paymentHash), {
        kind: 'failed',
        reason: spec.lookedUpFailureReason,
      });
    });

    test('a success for another amount is passed on as the node said it; a status no node uses is suspect', async () => {
      const request = (invoice: string) => ({ invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 });
      const overpaid = invoiceFor('settle-other-amount');
      const paid = await backend.pay(request(overpaid.invoice));
      assert.equal(paid.kind === 'succeeded' ? paid.amountMillisatoshis : paid.kind, 500_000_000n);
      assert.deepEqual(await backend.lookupPayment(overpaid.paymentHash), paid);
      const odd = invoiceFor('unknown-status');
      const suspect = { kind: 'suspect', reason: 'unknown-status', nodeReport: 'status UNHEARD_OF' };
      assert.deepEqual(await backend.pay(request(odd.invoice)), suspect);
      assert.deepEqual(await backend.lookupPayment(odd.paymentHash), suspect);
    });

    test('a hash the node never paid is unknown', async () => {
      assert.deepEqual(await backend.lookupPayment('ee'.repeat(32)), { kind: 'unknown' });
    });

    test(spec.credentialTitle, async () => {
      const [wrong = '', ...others] = spec.wrongCredentials;
      const isUnauthorized = (error: unknown) => {
        assert.ok(error instanceof LightningNodeError);
        assert.equal(error.fault, 'unauthorized');
        assert.doesNotMatch(error.message, new RegExp(spec.secretPartOf(wrong)));
        return true;
      };
      const intruder = spec.connect({ node, credential: wrong });
      await assert.rejects(intruder.getInfo(), isUnauthorized);
      const invoice = invoiceFor('settle');
      await assert.rejects(
        intruder.pay({ invoice: invoice.invoice, feeLimitMillisatoshis: 5_000n, timeoutSeconds: 30 }),
        isUnauthorized,
      );
      for (const other of others)
        await assert.rejects(spec.connect({ node, credential: other }).getInfo(), isUnauthorized);
      assert.equal(payments.payment(invoice.paymentHash), undefined);
    });

    test('a node presenting another certificate than the pinned one is not talked to: a certificate mismatch', async (t) => {
      const misled = spec.connect({
        node,
        certificatePem: makeSelfSignedCertificate().certificatePem,
        files: FILES,
      });
      const started = performance.now();
      await assert.rejects(misled.getInfo(), (error: unknown) => {
        assert.ok(error instanceof LightningNodeError);
        t.diagnostic(`${error.fault} in ${(performance.now() - started).toFixed(1)} ms: ${error.message}`);
        assert.equal(error.fault, 'certificate-mismatch');
        assert.match(error.message, /certificate mismatch/);
        assert.ok(error.message.includes(FILES.certificate), error.message);
        return true;
      });
    });

    test('a refused credential is named by its file, never by its content', async () => {
      const [wrong = ''] = spec.wrongCredentials;
      await assert.rejects(spec.connect({ node, credential: wrong, files: FILES }).getInfo(), (error: unknown) => {
        assert.ok(error instanceof LightningNodeError);
        assert.equal(error.fault, 'unauthorized');
        assert.match(error.message, /authentication refused/);
        assert.ok(error.message.includes(FILES.credential), error.message);
        assert.doesNotMatch(error.message, new RegExp(spec.secretPartOf(wrong)));
        return true;
      });
    });

    test('nothing listening, a node that never answers and one that answers no JSON: each named by its cause', async (t) => {
      const closedPort = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          server.close(() => resolve(port));
        });
      });
      const faultOf = async (target: RunningStandIn, timeoutMs = 5_000) => {
        const started = performance.now();
        const error = await spec
          .connect({ node: target, timeoutMs })
          .getInfo()
          .then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
        assert.ok(error instanceof LightningNodeError, String(error));
        t.diagnostic(`${error.fault} in ${(performance.now() - started).toFixed(1)} ms: ${error.message}`);
        return { fault: error.fault, message: error.message };
      };
      const refused = await faultOf({ ...node, url: `https://127.0.0.1:${closedPort}` });
      assert.equal(refused.fault, 'connection-refused');
      assert.match(refused.message, /connection refused/);
      const silent = await startHttpsStandIn(() => undefined);
      const garbage = await startHttpsStandIn((_request, _body, response) => {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      });
      try {
        const timedOut = await faultOf(silent, 300);
        assert.equal(timedOut.fault, 'timeout');
        assert.match(timedOut.message, /timed out \(no full answer within 300 ms\)/);
        const bad = await faultOf(garbage);
        assert.equal(bad.fault, 'bad-answer');
        assert.match(bad.message, /bad answer/);
      } finally {
        await silent.close();
        await garbage.close();
      }
    });

    test('an answer larger than the cap is refused', async () => {
      const capped = spec.connect({ node, maxResponseBytes: 64 });
      await assert.rejects(
        capped.getInfo(),
        (error: unknown) => error instanceof LightningNodeError && error.fault === 'too-large',
      );
    });
  });
}

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ClnRestBackend } from '../../../src/chains/lightning/cln-rest-backend.js';
import { LightningNodeError, type LightningBackend } from '../../../src/chains/lightning/lightning-backend.js';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import {
  payInvoice as payOrRefuse,
  paymentStanding,
  resumePayment,
  type InvoicePayment,
} from '../../../src/provider/payments/pay-invoice.js';
import { reportOutcomes } from '../../../src/provider/payments/report-outcomes.js';
import { ProviderState, type PaymentRecord } from '../../../src/provider/state/provider-state.js';
import { makeInvoice } from '../../support/invoices.js';
import { startClnRestStandIn } from '../../support/lightning/cln-rest-stand-in.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import { startLndRestStandIn } from '../../support/lightning/lnd-rest-stand-in.js';
import { SimulatedPayments, type PayeeBehaviour } from '../../support/lightning/simulated-payments.js';

const CREDENTIAL = 'abcdef0123456789';

/** A payment no refund was signed for: its record. */
async function payInvoice(...args: Parameters<typeof payOrRefuse>): Promise<PaymentRecord> {
  const record = await payOrRefuse(...args);
  assert.notEqual(record, 'refund-signed');
  return record as PaymentRecord;
}

interface NodeKind {
  name: string;
  start(payments: SimulatedPayments): Promise<RunningStandIn>;
  backend(node: RunningStandIn, credential: string, timeoutMs: number): LightningBackend;
}

const KINDS: NodeKind[] = [
  {
    name: 'LND',
    start: (payments) => startLndRestStandIn(payments, CREDENTIAL),
    backend: (node, macaroonHex, timeoutMs) =>
      new LndRestBackend({ url: node.url, certificatePem: node.certificatePem, macaroonHex, timeoutMs }),
  },
  {
    name: 'Core Lightning',
    start: (payments) => startClnRestStandIn(payments, CREDENTIAL),
    backend: (node, rune, timeoutMs) =>
      new ClnRestBackend({ url: node.url, certificatePem: node.certificatePem, rune, timeoutMs }),
  },
];

for (const kind of KINDS) {
  describe(`paying an invoice once through ${kind.name}`, () => {
    const payments = new SimulatedPayments();
    let node: RunningStandIn;
    let lightning: LightningBackend;
    let impatient: LightningBackend;
    let dir: string;
    let path: string;
    let state: ProviderState;
    const now = () => 1_000;

    before(async () => {
      node = await kind.start(payments);
      lightning = kind.backend(node, CREDENTIAL, 5_000);
      impatient = kind.backend(node, CREDENTIAL, 1_000);
      dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-pay-'));
      path = join(dir, 'provider.sqlite');
      state = ProviderState.open(path);
    });
    after(async () => {
      state.close();
      rmSync(dir, { recursive: true, force: true });
      await node.close();
    });

    let counter = 0;
    const orderFor = (behaviour: PayeeBehaviour): InvoicePayment & { preimage: string } => {
      const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 40_000n });
      payments.expect(invoice, behaviour);
      counter += 1;
      return {
        orderId: `order-${counter}`,
        invoice: invoice.invoice,
        paymentHash: invoice.paymentHash,
        preimage: invoice.preimage,
        amountMillisatoshis: 40_000_000n,
        feeLimitMillisatoshis: 5_000n,
        timeoutSeconds: 30,
        claim: { chain: 'ethereum', refundHeight: 6_000 },
      };
    };

    test('a settled payment records the preimage and opens the claim; paying again sends nothing', async () => {
      const order = orderFor('settle');
      const record = await payInvoice(state, lightning, order, now);
      assert.equal(record.state, 'succeeded');
      assert.equal(record.preimage, order.preimage);
      assert.equal(state.claim(order.orderId)?.state, 'pending');
      assert.deepEqual(await payInvoice(state, lightning, order, now), record);
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
    });

    test('a failed payment records the reason and opens no claim, and is never retried', async () => {
      const order = orderFor('no-route');
      const record = await payInvoice(state, lightning, order, now);
      assert.equal(record.state, 'failed');
      assert.equal(record.failureReason, 'no-route');
      assert.equal(state.claim(order.orderId), undefined);
      payments.expect({ invoice: order.invoice, paymentHash: order.paymentHash, preimage: order.preimage }, 'settle');
      assert.equal((await payInvoice(state, lightning, order, now)).state, 'failed');
      assert.equal(payments.payment(order.paymentHash)?.status, 'failed', 'the node was not asked again');
    });

    test('in flight across a restart: looked up, never sent again, claimed once settled', async () => {
      const order = orderFor('hold');
      assert.equal((await payInvoice(state, impatient, order, now)).state, 'paying');
      state.close();
      state = ProviderState.open(path);
      const [inFlight] = state.paymentsInFlight();
      assert.equal(inFlight?.paymentHash, order.paymentHash);
      assert.deepEqual(await resumePayment(state, lightning, inFlight, order.claim, now), { record: inFlight });
      assert.equal((await payInvoice(state, impatient, order, now)).state, 'paying');
      payments.settle(order.paymentHash);
      const resumed = await resumePayment(state, lightning, inFlight, order.claim, now);
      assert.ok('record' in resumed);
      assert.equal(resumed.record.state, 'succeeded');
      assert.equal(state.claim(order.orderId)?.state, 'pending');
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
    });

    test('in flight then failed: the failure is recorded after the lookup, with no claim', async () => {
      const order = orderFor('hold');
      await payInvoice(state, impatient, order, now);
      payments.fail(order.paymentHash);
      const record = state.payment(order.paymentHash);
      assert.ok(record);
      const resumed = await resumePayment(state, lightning, record, order.claim, now);
      assert.ok('record' in resumed);
      assert.equal(resumed.record.state, 'failed');
      assert.equal(state.claim(order.orderId), undefined);
    });

    test('written down but never sent (a crash in between): resumed as not sent, then paid once', async () => {
      const order = orderFor('settle');
      state.beginPayment({ ...order, nowMs: 1 });
      const record = state.payment(order.paymentHash);
      assert.ok(record);
      assert.deepEqual(await resumePayment(state, lightning, record, order.claim, now), { notSent: record });
      assert.equal((await payInvoice(state, lightning, order, now)).state, 'succeeded');
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
    });

    for (const [behaviour, reason, report] of [
      ['settle-bad-preimage', 'preimage-mismatch', /^preimage [0-9a-f]{64}$/],
      ['settle-other-amount', 'amount-mismatch', /^paid 400000000 msat for an invoice of 40000000 msat$/],
      ['unknown-status', 'unknown-status', /^status UNHEARD_OF$/],
    ] as const) {
      test(`a node reporting ${behaviour}: suspect, no claim, never paid again, looked up or reported`, async () => {
        const order = orderFor(behaviour);
        const record = await payInvoice(state, lightning, order, now);
        assert.equal(record.state, 'suspect');
        assert.equal(record.suspectReason, reason);
        assert.match(record.nodeReport ?? '', report);
        assert.equal(state.claim(order.orderId), undefined, 'no claim without a valid preimage');
        assert.deepEqual(await payInvoice(state, lightning, order, now), record);
        assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
        const nodeGone = kind.backend({ ...node, url: 'https://127.0.0.1:1' }, CREDENTIAL, 1_000);
        const settings = {
          state,
          lightning: nodeGone,
          paymentTimeoutSeconds: 30,
          feeLimitMillisatoshis: () => 5_000n,
          requiredConfirmations: 1,
          claimMarginBlocks: 10,
          now,
        };
        assert.deepEqual(await paymentStanding(settings, order.paymentHash, order.claim), {
          kind: 'payment-suspect',
          reason,
        });
        const sent: unknown[] = [];
        await reportOutcomes(state, (message) => {
          sent.push(message);
          return Promise.resolve({ success: true });
        });
        assert.ok(!sent.some((message) => (message as { orderId: string }).orderId === order.orderId));
        assert.equal(state.paymentCounts().suspect >= 1, true);
      });
    }

    test('a hash whose refund was signed away is never sent, and after a failure a refund may be signed', async () => {
      const order = orderFor('settle');
      const refund = { funder: `0x${'aa'.repeat(20)}`, signature: `0x${'bb'.repeat(65)}` };
      assert.equal(state.recordRefundSignatures(order.orderId, order.paymentHash, [refund], 1), 'recorded');
      assert.equal(await payOrRefuse(state, lightning, order, now), 'refund-signed');
      assert.equal(state.payment(order.paymentHash), undefined);
      assert.equal(payments.sendAttempts.get(order.paymentHash), undefined, 'the node was never asked');

      const failed = orderFor('no-route');
      await payInvoice(state, lightning, failed, now);
      assert.equal(state.recordRefundSignatures(failed.orderId, failed.paymentHash, [refund], 2), 'recorded');
      const held = orderFor('hold');
      assert.equal((await payInvoice(state, impatient, held, now)).state, 'paying');
      assert.equal(state.recordRefundSignatures(held.orderId, held.paymentHash, [refund], 3), 'payment-under-way');
      assert.deepEqual(state.refundSignatures(held.orderId), [], 'nothing signed away while a payment is in flight');
    });

    test('a refused credential sends nothing and leaves the payment to be looked up', async () => {
      const order = orderFor('settle');
      await assert.rejects(
        payInvoice(state, kind.backend(node, 'ff' + CREDENTIAL, 5_000), order, now),
        (error: unknown) => error instanceof LightningNodeError && error.fault === 'unauthorized',
      );
      assert.equal(state.payment(order.paymentHash)?.state, 'paying');
      assert.equal(payments.payment(order.paymentHash), undefined);
    });
  });
}

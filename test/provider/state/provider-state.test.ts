import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ProviderState, type PaymentStart } from '../../../src/provider/state/provider-state.js';
import { MIGRATIONS } from '../../../src/provider/state/schema.js';
import { programArgs } from '../../support/repository.js';

describe('the provider state file', () => {
  let dir: string;
  let state: ProviderState;
  let counter = 0;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-state-'));
    state = ProviderState.open(join(dir, 'provider.sqlite'));
  });
  after(() => {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newPayment = (): PaymentStart => {
    counter += 1;
    return {
      paymentHash: counter.toString(16).padStart(64, '0'),
      orderId: `order-${counter}`,
      invoice: `lnbcrt-invoice-${counter}`,
      amountMillisatoshis: 123_456_789_012_345_678n,
      feeLimitMillisatoshis: 2_000n,
      nowMs: 1_000,
    };
  };

  test('a payment hash can be begun once only, whatever became of the first payment', () => {
    const start = newPayment();
    assert.equal(state.beginPayment(start), 'begun');
    assert.equal(state.beginPayment({ ...start, orderId: 'another-order' }), 'exists');
    assert.ok(state.recordPaymentFailed(start.paymentHash, 'no-route', 2_000));
    assert.equal(state.beginPayment(start), 'exists');
    assert.equal(state.payment(start.paymentHash)?.orderId, start.orderId);
  });

  test('a success stores preimage and fee and opens the claim in one step; amounts keep every digit', () => {
    const start = newPayment();
    state.beginPayment(start);
    assert.deepEqual(
      state.paymentsInFlight().map((payment) => payment.paymentHash),
      [start.paymentHash],
    );
    assert.ok(
      state.recordPaymentSucceeded(
        start.paymentHash,
        { preimage: 'aa'.repeat(32), feeMillisatoshis: 1_500n, nowMs: 3_000 },
        { chain: 'bitcoin', refundHeight: 900 },
      ),
    );
    const payment = state.payment(start.paymentHash);
    assert.equal(payment?.state, 'succeeded');
    assert.equal(payment.amountMillisatoshis, 123_456_789_012_345_678n);
    assert.equal(payment.feeMillisatoshis, 1_500n);
    assert.deepEqual(state.claim(start.orderId), {
      orderId: start.orderId,
      chain: 'bitcoin',
      paymentHash: start.paymentHash,
      refundHeight: 900,
      state: 'pending',
      attempts: 0,
    });
    assert.deepEqual(state.paymentsInFlight(), []);
  });

  test('an outcome is recorded only for a payment in flight: a late failure cannot overwrite a success', () => {
    const start = newPayment();
    assert.equal(state.recordPaymentFailed(start.paymentHash, 'error', 1), false, 'never begun');
    state.beginPayment(start);
    state.recordPaymentSucceeded(
      start.paymentHash,
      { preimage: 'bb'.repeat(32), feeMillisatoshis: 0n, nowMs: 2 },
      { chain: 'ethereum', refundHeight: 6_000 },
    );
    assert.equal(state.recordPaymentFailed(start.paymentHash, 'timeout', 3), false);
    assert.equal(
      state.recordPaymentSucceeded(
        start.paymentHash,
        { preimage: 'cc'.repeat(32), feeMillisatoshis: 0n, nowMs: 4 },
        { chain: 'ethereum', refundHeight: 6_000 },
      ),
      false,
    );
    assert.equal(state.payment(start.paymentHash)?.preimage, 'bb'.repeat(32));
  });

  test('outcomes wait to be reported until the service acknowledges them; a payment in flight cannot be', () => {
    const start = newPayment();
    state.beginPayment(start);
    assert.equal(state.markReported(start.paymentHash), false);
    state.recordPaymentFailed(start.paymentHash, 'insufficient-balance', 5);
    assert.ok(state.unreportedPayments().some((payment) => payment.paymentHash === start.paymentHash));
    assert.ok(state.markReported(start.paymentHash));
    assert.ok(!state.unreportedPayments().some((payment) => payment.paymentHash === start.paymentHash));
  });

  test('claims count their broadcasts, keep the latest fee and the first nonce, and leave the open list once confirmed', () => {
    const start = newPayment();
    state.beginPayment(start);
    state.recordPaymentSucceeded(
      start.paymentHash,
      { preimage: 'dd'.repeat(32), feeMillisatoshis: 0n, nowMs: 2 },
      { chain: 'bitcoin', refundHeight: 50 },
    );
    state.recordClaimBroadcast(start.orderId, { txId: 'tx-1', fee: 500n, height: 10, nonce: 7 });
    state.recordClaimBroadcast(start.orderId, { txId: 'tx-2', fee: 1_200n, height: 12, nonce: 8 });
    const claim = state.claim(start.orderId);
    assert.equal(claim?.attempts, 2);
    assert.equal(claim.fee, 1_200n);
    assert.equal(claim.txId, 'tx-2');
    assert.equal(claim.nonce, 7, "a replacement keeps the first claim's nonce");
    assert.equal(state.openClaims()[0]?.orderId, start.orderId, 'the nearest refund height leads');
    assert.ok(state.recordClaimConfirmed(start.orderId, 'tx-2', 13));
    assert.equal(state.recordClaimBroadcast(start.orderId, { txId: 'tx-3', fee: 2_000n, height: 14 }), false);
    assert.ok(!state.openClaims().some((open) => open.orderId === start.orderId));
  });

  test('kill -9 after any step leaves a state a restart can resume from', () => {
    const child = programArgs(import.meta.url, '../../support/provider/kill-during-payment');
    const expected = [
      { payment: undefined, claim: undefined },
      { payment: 'paying', claim: undefined },
      { payment: 'succeeded', claim: 'pending' },
      { payment: 'succeeded', claim: 'broadcast' },
    ];
    for (const [steps, want] of expected.entries()) {
      const path = join(dir, `killed-${steps}.sqlite`);
      const run = spawnSync(process.execPath, [...child, path, String(steps)], { encoding: 'utf8' });
      assert.equal(run.signal, 'SIGKILL', run.stderr);
      const reopened = ProviderState.open(path);
      try {
        const paymentHash = 'ab'.repeat(32);
        assert.deepEqual(
          { payment: reopened.payment(paymentHash)?.state, claim: reopened.claim('order-1')?.state },
          want,
          `killed after ${steps} steps`,
        );
        if (want.payment === 'paying') {
          assert.deepEqual(
            reopened.paymentsInFlight().map((payment) => payment.paymentHash),
            [paymentHash],
          );
          assert.equal(
            reopened.beginPayment({
              paymentHash,
              orderId: 'order-1',
              invoice: 'x',
              amountMillisatoshis: 1n,
              feeLimitMillisatoshis: 0n,
              nowMs: 9,
            }),
            'exists',
          );
        }
      } finally {
        reopened.close();
      }
    }
  });

  test('a state file from a newer lnswap is refused rather than misread', () => {
    const path = join(dir, 'newer.sqlite');
    const newer = ProviderState.open(path);
    newer.close();
    const raw = spawnSync(process.execPath, [
      '-e',
      `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(path)}); db.pragma('user_version = 99'); db.close();`,
    ]);
    assert.equal(raw.status, 0);
    assert.throws(() => ProviderState.open(path), /schema version 99/);
  });

  test("a quote keeps its invoice; a second quote of the order replaces every term; the service's mismatch fails the hash for good", () => {
    const quote = {
      orderId: 'quoted-1',
      market: 'SETH_LSBTC',
      paymentHash: 'ab'.repeat(32),
      invoice: 'lnbcrt240u1first',
      invoiceAmountMillisatoshis: 24_000_000n,
      onchainAmount: 7_000n,
      expiresAtMs: 10_000,
      quotedAtMs: 1_000,
    };
    state.recordQuote(quote);
    assert.equal(state.quote(quote.orderId)?.invoice, quote.invoice);
    const second = {
      ...quote,
      paymentHash: 'cd'.repeat(32),
      invoice: 'lnbcrt1m1second',
      invoiceAmountMillisatoshis: 100_000_000n,
      onchainAmount: 30_000n,
    };
    state.recordQuote(second);
    const kept = state.quote(quote.orderId);
    assert.deepEqual(
      [kept?.paymentHash, kept?.invoice, kept?.invoiceAmountMillisatoshis, kept?.onchainAmount],
      [second.paymentHash, second.invoice, second.invoiceAmountMillisatoshis, second.onchainAmount],
    );

    assert.ok(state.recordServiceMismatch(quote.orderId, 5_000));
    const refused = state.payment(second.paymentHash);
    assert.deepEqual(
      [refused?.state, refused?.failureReason, refused?.invoice, refused?.reported, state.quote(quote.orderId)?.closed],
      ['failed', 'service-mismatch', second.invoice, false, true],
    );
    assert.equal(
      state.beginPayment({
        paymentHash: second.paymentHash,
        orderId: quote.orderId,
        invoice: second.invoice,
        amountMillisatoshis: 1n,
        feeLimitMillisatoshis: 0n,
        nowMs: 6_000,
      }),
      'exists',
      'never paid afterwards',
    );
    assert.ok(state.unreportedPayments().some((payment) => payment.paymentHash === second.paymentHash));
    assert.equal(state.recordServiceMismatch(quote.orderId, 7_000), false, 'written once');
  });

  test('a file of the third schema is migrated in place: its quotes kept, without an invoice', () => {
    const path = join(dir, 'third-schema.sqlite');
    const raw = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 3)) raw.exec(migration);
    raw.pragma('user_version = 3');
    raw
      .prepare(
        `INSERT INTO quotes (order_id, market, payment_hash, invoice_amount_msat, onchain_amount, expires_at_ms, quoted_at_ms, won)
         VALUES ('old', 'SETH_LSBTC', ?, '24000000', '7000', 10, 1, 1)`,
      )
      .run('ef'.repeat(32));
    raw.close();

    const migrated = ProviderState.open(path);
    try {
      const old = migrated.quote('old');
      assert.deepEqual(
        [old?.paymentHash, old?.invoiceAmountMillisatoshis, old?.won, 'invoice' in (old ?? {})],
        ['ef'.repeat(32), 24_000_000n, true, false],
      );
      assert.ok(migrated.recordServiceMismatch('old', 2));
      assert.equal(migrated.payment('ef'.repeat(32))?.failureReason, 'service-mismatch');
    } finally {
      migrated.close();
    }
  });

  test('a file of the first schema is migrated in place: its payments and claims kept, Bitcoin HTLCs and fee rates added', () => {
    const path = join(dir, 'first-schema.sqlite');
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    raw
      .prepare(
        `INSERT INTO payments (payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, preimage, started_at_ms)
         VALUES (?, 'kept', 'lnbcrt1', '1000', '10', 'succeeded', ?, 1)`,
      )
      .run('aa'.repeat(32), 'bb'.repeat(32));
    raw
      .prepare(
        `INSERT INTO claims (order_id, chain, payment_hash, refund_height, state) VALUES ('kept', 'bitcoin', ?, 900, 'pending')`,
      )
      .run('aa'.repeat(32));
    raw.close();

    const migrated = ProviderState.open(path);
    try {
      assert.equal(migrated.payment('aa'.repeat(32))?.preimage, 'bb'.repeat(32));
      assert.ok(migrated.recordClaimBroadcast('kept', { txId: 'cc'.repeat(32), fee: 700n, feeRate: 5n, height: 880 }));
      assert.deepEqual(
        {
          state: migrated.claim('kept')?.state,
          fee: migrated.claim('kept')?.fee,
          feeRate: migrated.claim('kept')?.feeRate,
        },
        { state: 'broadcast', fee: 700n, feeRate: 5n },
      );
      const htlc = {
        orderId: 'kept',
        redeemScript: 'a8',
        payToAddress: 'bcrt1q',
        refundHeight: 900,
        quotedHeight: 850,
      };
      migrated.recordBitcoinHtlc(htlc);
      assert.deepEqual(migrated.bitcoinHtlc('kept'), htlc);
    } finally {
      migrated.close();
    }
  });
});

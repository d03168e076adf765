import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ProviderState, type PaymentStart } from '../../../src/provider/state/provider-state.js';
import { MIGRATIONS } from '../../../src/provider/state/schema.js';
import { ForeignStateFileError } from '../../../src/provider/state/own-tables.js';
import { openStore } from '../../../src/store/open.js';
import { programArgs, repositoryPath } from '../../support/repository.js';

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

  test('a file of the schema before suspect payments keeps its payments and claims, and takes a suspect one', () => {
    const path = join(dir, 'before-suspect.sqlite');
    const raw = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 3)) raw.exec(migration);
    raw.pragma('user_version = 3');
    raw
      .prepare(
        `INSERT INTO payments (payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, preimage, started_at_ms)
         VALUES (?, 'paid', 'lnbcrt1', '1000', '10', 'succeeded', ?, 1), (?, 'odd', 'lnbcrt2', '2000', '10', 'paying', NULL, 2)`,
      )
      .run('aa'.repeat(32), 'bb'.repeat(32), 'cc'.repeat(32));
    raw
      .prepare(
        `INSERT INTO claims (order_id, chain, payment_hash, refund_height, state) VALUES ('paid', 'ethereum', ?, 900, 'pending')`,
      )
      .run('aa'.repeat(32));
    raw.close();

    const migrated = ProviderState.open(path);
    try {
      assert.equal(migrated.payment('aa'.repeat(32))?.preimage, 'bb'.repeat(32));
      assert.equal(migrated.claim('paid')?.paymentHash, 'aa'.repeat(32));
      assert.ok(
        migrated.recordPaymentSuspect('cc'.repeat(32), {
          reason: 'amount-mismatch',
          nodeReport: 'paid 9 msat',
          nowMs: 3,
        }),
      );
      assert.equal(migrated.recordPaymentFailed('cc'.repeat(32), 'error', 4), false, 'a suspect payment stays so');
      assert.equal(migrated.markReported('cc'.repeat(32)), false, 'nothing of it is reported');
      assert.deepEqual(
        migrated.suspectPayments().map((payment) => [payment.orderId, payment.suspectReason, payment.nodeReport]),
        [['odd', 'amount-mismatch', 'paid 9 msat']],
      );
      assert.equal(migrated.paymentCounts().suspect, 1);
    } finally {
      migrated.close();
    }
    const check = new Database(path, { readonly: true });
    try {
      assert.deepEqual(check.pragma('foreign_key_check'), []);
      assert.match(
        String((check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'claims'`).get() as { sql: string }).sql),
        /REFERENCES payments \(payment_hash\)/,
      );
    } finally {
      check.close();
    }
  });

  test("the operator's two resolutions of a suspect payment in docs/provider.md: looked up again, or failed", () => {
    const docs = readFileSync(repositoryPath('docs', 'provider.md'), 'utf8');
    const statements = [...docs.matchAll(/`(UPDATE payments SET [^`]*AND state = 'suspect';)`/g)].map(
      (match) => match[1]!,
    );
    assert.equal(statements.length, 2, 'docs/provider.md gives two statements');
    const [lookAgain, failed] = statements;
    for (const [name, statement] of [
      ['look-again', lookAgain!],
      ['failed', failed!],
    ] as const) {
      const path = join(dir, `resolve-${name}.sqlite`);
      const start = { ...newPayment(), nowMs: 1 };
      const opened = ProviderState.open(path);
      opened.beginPayment(start);
      opened.recordPaymentSuspect(start.paymentHash, {
        reason: 'preimage-mismatch',
        nodeReport: 'preimage 00',
        nowMs: 2,
      });
      opened.close();
      const raw = new Database(path);
      assert.equal(raw.prepare(statement.replace('HASH', start.paymentHash)).run().changes, 1, name);
      assert.equal(raw.prepare(statement.replace('HASH', start.paymentHash)).run().changes, 0, 'only a suspect one');
      raw.close();
      const reopened = ProviderState.open(path);
      try {
        assert.deepEqual(reopened.suspectPayments(), []);
        if (name === 'look-again') {
          assert.deepEqual(
            reopened.paymentsInFlight().map((payment) => payment.paymentHash),
            [start.paymentHash],
          );
        } else {
          assert.deepEqual(
            reopened.unreportedPayments().map((payment) => [payment.paymentHash, payment.state]),
            [[start.paymentHash, 'failed']],
          );
        }
      } finally {
        reopened.close();
      }
    }
  });

  test("the service's own SQLite database given as the state file is refused, naming the file and its tables", async () => {
    const path = join(dir, 'service.sqlite');
    const service = await openStore(`sqlite:${path}`);
    await service.close();
    const tablesOf = () => {
      const raw = new Database(path, { readonly: true });
      try {
        return (
          raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]
        ).map((row) => row.name);
      } finally {
        raw.close();
      }
    };
    const before = tablesOf();
    assert.ok(before.includes('orders'), 'the service made its tables');
    assert.throws(
      () => ProviderState.open(path),
      (error: unknown) =>
        error instanceof ForeignStateFileError &&
        error.message.includes(path) &&
        error.foreignTables.includes('orders') &&
        error.foreignTables.every((table) => before.includes(table)) &&
        error.message.includes('orders'),
    );
    assert.deepEqual(tablesOf(), before, 'nothing added to the service database');
  });

  test('a file of an older schema, or with one more table than the provider made, is told apart', () => {
    const path = join(dir, 'one-more-table.sqlite');
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    raw.close();
    ProviderState.open(path).close();
    const extra = new Database(path);
    extra.exec('CREATE TABLE notes (body TEXT)');
    extra.close();
    assert.throws(() => ProviderState.open(path), /holds tables of another program \(notes\)/);
  });
});

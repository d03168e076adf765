import Database, { type Database as Db } from 'better-sqlite3';
import type { PaymentFailureReason, SuspectReason } from '../../chains/lightning/lightning-backend.js';
import type { ChainKind } from '../../domain/markets.js';
import { refuseForeignTables } from './own-tables.js';
import { migrateProviderState } from './schema.js';

export interface QuoteRecord {
  orderId: string;
  market: string;
  paymentHash: string;
  /** The invoice quoted for, the only one the provider pays for the order; absent in quotes written before it was kept. */
  invoice?: string;
  invoiceAmountMillisatoshis: bigint;
  onchainAmount: bigint;
  expiresAtMs: number;
  quotedAtMs: number;
  won: boolean;
  /** Nothing left to do for the order: the auction was lost, or the order won is over. */
  closed: boolean;
}

/**
 * `suspect`: the node reported the payment in a state the daemon cannot trust (SuspectReason). Money may have gone
 * out, so it is never paid again nor reported failed, and without a valid preimage never claimed: the operator
 * resolves it (docs/provider.md, Suspect payments).
 */
export type PaymentState = 'paying' | 'succeeded' | 'failed' | 'suspect';

/**
 * Why a payment failed: the node's reason, or `service-mismatch` for one never sent because the service
 * answered the order with terms other than the quote's (the hash is then never paid).
 */
export type RecordedFailureReason = PaymentFailureReason | 'service-mismatch';

export interface PaymentRecord {
  paymentHash: string;
  orderId: string;
  invoice: string;
  amountMillisatoshis: bigint;
  feeLimitMillisatoshis: bigint;
  state: PaymentState;
  preimage?: string;
  feeMillisatoshis?: bigint;
  failureReason?: RecordedFailureReason;
  suspectReason?: SuspectReason;
  /** What the node said of a suspect payment (its preimage, amount or status), shortened. */
  nodeReport?: string;
  /** The service acknowledged the `paymentResult` for this outcome. */
  reported: boolean;
  startedAtMs: number;
  resolvedAtMs?: number;
}

/** `lost`: the funds went back to the user (refunded) before any claim landed. */
export type ClaimState = 'pending' | 'broadcast' | 'confirmed' | 'lost';

export interface ClaimRecord {
  orderId: string;
  chain: ChainKind;
  paymentHash: string;
  refundHeight: number;
  state: ClaimState;
  txId?: string;
  /** An Ethereum claim's nonce: its replacements reuse it, so only one of them can land. */
  nonce?: number;
  /** What the latest claim transaction pays in fees, in the chain's base unit. */
  fee?: bigint;
  /** A Bitcoin claim's rate, satoshis per virtual byte: a replacement must pay more. */
  feeRate?: bigint;
  attempts: number;
  broadcastHeight?: number;
  confirmedHeight?: number;
}

/** The HTLC a Bitcoin quote asked the user to fund. */
export interface BitcoinHtlcRecord {
  orderId: string;
  redeemScript: string;
  payToAddress: string;
  refundHeight: number;
  /** The provider's chain tip when it quoted: no funding of the HTLC can be in an earlier block. */
  quotedHeight: number;
}

/** A cooperative refund the provider signed away: the claimer's EIP-712 signature for one slot of an order. */
export interface RefundSignatureRecord {
  orderId: string;
  /** Lowercase 0x address: the slot is (order, funder). */
  funder: string;
  /** The payment hash of the order: never paid once a refund of it is signed. */
  paymentHash: string;
  /** 65 bytes, lowercase 0x hex. */
  signature: string;
  signedAtMs: number;
  /** The service acknowledged the `refundAuthorization` carrying it. */
  reported: boolean;
}

/**
 * `recorded`: the signatures are written down and may leave; `payment-under-way`: a payment of the hash is in
 * flight, succeeded or suspect, so nothing was written and nothing may be signed away.
 */
export type RefundSigning = 'recorded' | 'payment-under-way';

export interface PaymentStart {
  paymentHash: string;
  orderId: string;
  invoice: string;
  amountMillisatoshis: bigint;
  feeLimitMillisatoshis: bigint;
  nowMs: number;
}

interface PaymentRow {
  payment_hash: string;
  order_id: string;
  invoice: string;
  amount_msat: string;
  fee_limit_msat: string;
  state: PaymentState;
  preimage: string | null;
  fee_msat: string | null;
  failure_reason: RecordedFailureReason | null;
  suspect_reason: SuspectReason | null;
  node_report: string | null;
  reported: number;
  started_at_ms: number;
  resolved_at_ms: number | null;
}

interface ClaimRow {
  order_id: string;
  chain: ChainKind;
  payment_hash: string;
  refund_height: number;
  state: ClaimState;
  tx_id: string | null;
  nonce: number | null;
  fee: string | null;
  fee_rate: string | null;
  attempts: number;
  broadcast_height: number | null;
  confirmed_height: number | null;
}

interface BitcoinHtlcRow {
  order_id: string;
  redeem_script: string;
  pay_to_address: string;
  refund_height: number;
  quoted_height: number;
}

interface RefundSignatureRow {
  order_id: string;
  funder: string;
  payment_hash: string;
  signature: string;
  signed_at_ms: number;
  reported: number;
}

interface QuoteRow {
  order_id: string;
  market: string;
  payment_hash: string;
  invoice: string | null;
  invoice_amount_msat: string;
  onchain_amount: string;
  expires_at_ms: number;
  quoted_at_ms: number;
  won: number;
  closed: number;
}

/**
 * The provider's memory, in its own SQLite file. Every change that must hold together is one
 * transaction, and a payment is written down as `paying` before the node is asked to pay, so a
 * process killed at any point restarts into one of: not begun, in flight (look it up by hash),
 * succeeded with its claim opened, or failed.
 */
export class ProviderState {
  private constructor(private readonly db: Db) {}

  /**
   * `synchronous = FULL`: a commit is on disk before the call returns, so a payment begun is never
   * forgotten, even by a power cut (NORMAL would only survive the process dying). A file holding another
   * program's tables is refused before anything is written to it (ForeignStateFileError).
   */
  static open(path: string): ProviderState {
    const db = new Database(path);
    try {
      refuseForeignTables(db, path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrateProviderState(db);
      return new ProviderState(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  close(): void {
    this.db.close();
  }

  /**
   * Written before the quote is sent. A second quote for the order replaces every term of the first, the
   * invoice with its amount and hash included, so the row always holds one quote's terms together.
   */
  recordQuote(quote: Omit<QuoteRecord, 'won' | 'closed' | 'invoice'> & { invoice: string }): void {
    this.db
      .prepare(
        `INSERT INTO quotes (order_id, market, payment_hash, invoice, invoice_amount_msat, onchain_amount, expires_at_ms, quoted_at_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (order_id) DO UPDATE SET payment_hash = excluded.payment_hash, invoice = excluded.invoice,
           invoice_amount_msat = excluded.invoice_amount_msat, onchain_amount = excluded.onchain_amount,
           expires_at_ms = excluded.expires_at_ms, quoted_at_ms = excluded.quoted_at_ms`,
      )
      .run(
        quote.orderId,
        quote.market,
        quote.paymentHash,
        quote.invoice,
        quote.invoiceAmountMillisatoshis.toString(),
        quote.onchainAmount.toString(),
        quote.expiresAtMs,
        quote.quotedAtMs,
      );
  }

  /** Written with the quote, before it is sent: a won order's HTLC is always known. */
  recordBitcoinHtlc(htlc: BitcoinHtlcRecord): void {
    this.db
      .prepare(
        `INSERT INTO bitcoin_htlcs (order_id, redeem_script, pay_to_address, refund_height, quoted_height)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (order_id) DO UPDATE SET redeem_script = excluded.redeem_script,
           pay_to_address = excluded.pay_to_address, refund_height = excluded.refund_height,
           quoted_height = excluded.quoted_height`,
      )
      .run(htlc.orderId, htlc.redeemScript, htlc.payToAddress, htlc.refundHeight, htlc.quotedHeight);
  }

  bitcoinHtlc(orderId: string): BitcoinHtlcRecord | undefined {
    const row = this.db.prepare('SELECT * FROM bitcoin_htlcs WHERE order_id = ?').get(orderId) as
      BitcoinHtlcRow | undefined;
    return row === undefined
      ? undefined
      : {
          orderId: row.order_id,
          redeemScript: row.redeem_script,
          payToAddress: row.pay_to_address,
          refundHeight: row.refund_height,
          quotedHeight: row.quoted_height,
        };
  }

  markQuoteWon(orderId: string): boolean {
    return this.db.prepare('UPDATE quotes SET won = 1 WHERE order_id = ?').run(orderId).changes === 1;
  }

  /** Marks the order done with: a lost auction, or an order won that is over. */
  closeQuote(orderId: string): boolean {
    return this.db.prepare('UPDATE quotes SET closed = 1 WHERE order_id = ? AND closed = 0').run(orderId).changes === 1;
  }

  /**
   * The service answered the order with terms other than the quote's: the quote's payment hash is written
   * down as a payment failed with `service-mismatch` (never sent, so never paid, whatever the service says
   * later; its failure is reported like any other) and the order closed, in one transaction. False when a
   * payment of the hash was begun before, which then stands as it is.
   */
  recordServiceMismatch(orderId: string, nowMs: number): boolean {
    return this.db.transaction(() => {
      const quote = this.quote(orderId);
      if (quote === undefined) return false;
      const written = this.db
        .prepare(
          `INSERT INTO payments (payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, failure_reason,
             started_at_ms, resolved_at_ms)
           VALUES (?, ?, ?, ?, '0', 'failed', 'service-mismatch', ?, ?) ON CONFLICT (payment_hash) DO NOTHING`,
        )
        .run(
          quote.paymentHash,
          orderId,
          quote.invoice ?? '',
          quote.invoiceAmountMillisatoshis.toString(),
          nowMs,
          nowMs,
        );
      this.closeQuote(orderId);
      return written.changes === 1;
    })();
  }

  /** Quotes whose order the daemon still follows, oldest first. */
  openQuotes(): QuoteRecord[] {
    const rows = this.db.prepare('SELECT * FROM quotes WHERE closed = 0 ORDER BY quoted_at_ms').all() as QuoteRow[];
    return rows.map(quoteFromRow);
  }

  /**
   * Millisatoshis the provider may lose or has committed: invoices of orders still followed that were
   * not refused by a failed payment, and paid invoices whose claim has not landed. What the inventory
   * limit bounds.
   */
  atRiskMillisatoshis(): bigint {
    const rows = this.db
      .prepare(
        `SELECT q.invoice_amount_msat AS amount FROM quotes q
           LEFT JOIN payments p ON p.order_id = q.order_id
           LEFT JOIN claims c ON c.order_id = q.order_id
         WHERE (q.closed = 0 AND (p.state IS NULL OR p.state <> 'failed') AND (c.state IS NULL OR c.state IN ('pending', 'broadcast')))
            OR (q.closed = 1 AND c.state IN ('pending', 'broadcast'))`,
      )
      .all() as { amount: string }[];
    return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
  }

  /** How many payments are in each state, for metrics. */
  paymentCounts(): Record<PaymentState, number> {
    const counts: Record<PaymentState, number> = { paying: 0, succeeded: 0, failed: 0, suspect: 0 };
    const rows = this.db.prepare('SELECT state, COUNT(*) AS n FROM payments GROUP BY state').all() as {
      state: PaymentState;
      n: number;
    }[];
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  /** The payment begun for an order, if any (one per order: one invoice, one hash). */
  paymentOfOrder(orderId: string): PaymentRecord | undefined {
    const row = this.db.prepare('SELECT * FROM payments WHERE order_id = ?').get(orderId) as PaymentRow | undefined;
    return row === undefined ? undefined : paymentFromRow(row);
  }

  quote(orderId: string): QuoteRecord | undefined {
    const row = this.db.prepare('SELECT * FROM quotes WHERE order_id = ?').get(orderId) as QuoteRow | undefined;
    return row === undefined ? undefined : quoteFromRow(row);
  }

  /**
   * Takes the one right to pay this payment hash: 'begun' when this call wrote it down, 'exists'
   * when any payment to the hash was begun before (whatever became of it), so it is never sent twice,
   * 'refund-signed' when a refund of the hash was signed away (`recordRefundSignatures`), so it is never sent
   * at all. One statement, so no signature can come between the check and the write.
   */
  beginPayment(start: PaymentStart): 'begun' | 'exists' | 'refund-signed' {
    const result = this.db
      .prepare(
        `INSERT INTO payments (payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, started_at_ms)
         SELECT ?, ?, ?, ?, ?, 'paying', ?
         WHERE NOT EXISTS (SELECT 1 FROM refund_signatures WHERE payment_hash = ?)
         ON CONFLICT (payment_hash) DO NOTHING`,
      )
      .run(
        start.paymentHash,
        start.orderId,
        start.invoice,
        start.amountMillisatoshis.toString(),
        start.feeLimitMillisatoshis.toString(),
        start.nowMs,
        start.paymentHash,
      );
    if (result.changes === 1) return 'begun';
    return this.payment(start.paymentHash) === undefined ? 'refund-signed' : 'exists';
  }

  /**
   * Writes down the cooperative refunds signed for slots of an order, before any of them leaves the daemon, in one
   * transaction with the check that no payment of the hash is in flight, succeeded or suspect (a failed one, or
   * none, may be refunded). A slot already signed keeps its first signature.
   */
  recordRefundSignatures(
    orderId: string,
    paymentHash: string,
    refunds: readonly { funder: string; signature: string }[],
    nowMs: number,
  ): RefundSigning {
    return this.db.transaction((): RefundSigning => {
      const payment = this.payment(paymentHash);
      if (payment !== undefined && payment.state !== 'failed') return 'payment-under-way';
      const insert = this.db.prepare(
        `INSERT INTO refund_signatures (order_id, funder, payment_hash, signature, signed_at_ms)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (order_id, funder) DO NOTHING`,
      );
      for (const { funder, signature } of refunds) {
        insert.run(orderId, funder.toLowerCase(), paymentHash, signature.toLowerCase(), nowMs);
      }
      return 'recorded';
    })();
  }

  /** The refunds signed for an order, by funder. */
  refundSignatures(orderId: string): RefundSignatureRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM refund_signatures WHERE order_id = ? ORDER BY funder')
      .all(orderId) as RefundSignatureRow[];
    return rows.map(refundSignatureFromRow);
  }

  /** Signed refunds the service has not acknowledged yet, oldest first: sent again until it does. */
  unreportedRefundSignatures(): RefundSignatureRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM refund_signatures WHERE reported = 0 ORDER BY signed_at_ms, order_id, funder')
      .all() as RefundSignatureRow[];
    return rows.map(refundSignatureFromRow);
  }

  /** The service acknowledged the order's signed refunds (or refused them for good). */
  markRefundSignaturesReported(orderId: string): boolean {
    return (
      this.db.prepare('UPDATE refund_signatures SET reported = 1 WHERE order_id = ? AND reported = 0').run(orderId)
        .changes > 0
    );
  }

  /**
   * The payment succeeded: its preimage and fee, and the claim it entitles the provider to, written
   * together. False when the payment was not in flight (already resolved, or never begun).
   */
  recordPaymentSucceeded(
    paymentHash: string,
    outcome: { preimage: string; feeMillisatoshis: bigint; nowMs: number },
    claim: { chain: ChainKind; refundHeight: number },
  ): boolean {
    return this.db.transaction(() => {
      const moved = this.db
        .prepare(
          `UPDATE payments SET state = 'succeeded', preimage = ?, fee_msat = ?, resolved_at_ms = ?
           WHERE payment_hash = ? AND state = 'paying'`,
        )
        .run(outcome.preimage, outcome.feeMillisatoshis.toString(), outcome.nowMs, paymentHash);
      if (moved.changes !== 1) return false;
      const payment = this.payment(paymentHash);
      if (payment === undefined) return false;
      this.db
        .prepare(
          `INSERT INTO claims (order_id, chain, payment_hash, refund_height, state) VALUES (?, ?, ?, ?, 'pending')`,
        )
        .run(payment.orderId, claim.chain, paymentHash, claim.refundHeight);
      return true;
    })();
  }

  /** The payment failed for good (nothing in flight). False when it was not in flight. */
  recordPaymentFailed(paymentHash: string, reason: PaymentFailureReason, nowMs: number): boolean {
    return (
      this.db
        .prepare(
          `UPDATE payments SET state = 'failed', failure_reason = ?, resolved_at_ms = ?
           WHERE payment_hash = ? AND state = 'paying'`,
        )
        .run(reason, nowMs, paymentHash).changes === 1
    );
  }

  /**
   * The node reported the payment in a state the daemon cannot trust: kept apart, with why and what the node said.
   * False when it was not in flight.
   */
  recordPaymentSuspect(
    paymentHash: string,
    suspicion: { reason: SuspectReason; nodeReport: string; nowMs: number },
  ): boolean {
    return (
      this.db
        .prepare(
          `UPDATE payments SET state = 'suspect', suspect_reason = ?, node_report = ?, resolved_at_ms = ?
           WHERE payment_hash = ? AND state = 'paying'`,
        )
        .run(suspicion.reason, suspicion.nodeReport, suspicion.nowMs, paymentHash).changes === 1
    );
  }

  /** Suspect payments, oldest first: what `/readyz` names until the operator resolves them. */
  suspectPayments(): PaymentRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM payments WHERE state = 'suspect' ORDER BY started_at_ms`)
      .all() as PaymentRow[];
    return rows.map(paymentFromRow);
  }

  /** The service acknowledged the `paymentResult`; only a succeeded or failed payment can have been reported. */
  markReported(paymentHash: string): boolean {
    return (
      this.db
        .prepare(`UPDATE payments SET reported = 1 WHERE payment_hash = ? AND state IN ('succeeded', 'failed')`)
        .run(paymentHash).changes === 1
    );
  }

  payment(paymentHash: string): PaymentRecord | undefined {
    const row = this.db.prepare('SELECT * FROM payments WHERE payment_hash = ?').get(paymentHash) as
      PaymentRow | undefined;
    return row === undefined ? undefined : paymentFromRow(row);
  }

  /** Payments begun whose outcome is not known: after a restart each is looked up at the node. */
  paymentsInFlight(): PaymentRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM payments WHERE state = 'paying' ORDER BY started_at_ms`)
      .all() as PaymentRow[];
    return rows.map(paymentFromRow);
  }

  /** Outcomes the service has not acknowledged yet: sent again until it does. A suspect payment has none to send. */
  unreportedPayments(): PaymentRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM payments WHERE state IN ('succeeded', 'failed') AND reported = 0 ORDER BY resolved_at_ms`)
      .all() as PaymentRow[];
    return rows.map(paymentFromRow);
  }

  /** A claim transaction went out (the first, or a fee-bumped replacement). */
  recordClaimBroadcast(
    orderId: string,
    broadcast: { txId: string; fee: bigint; height: number; nonce?: number; feeRate?: bigint },
  ): boolean {
    return (
      this.db
        .prepare(
          `UPDATE claims SET state = 'broadcast', tx_id = ?, fee = ?, fee_rate = ?, broadcast_height = ?,
             nonce = COALESCE(nonce, ?), attempts = attempts + 1
           WHERE order_id = ? AND state IN ('pending', 'broadcast')`,
        )
        .run(
          broadcast.txId,
          broadcast.fee.toString(),
          broadcast.feeRate?.toString() ?? null,
          broadcast.height,
          broadcast.nonce ?? null,
          orderId,
        ).changes === 1
    );
  }

  recordClaimConfirmed(orderId: string, txId: string, height: number): boolean {
    return (
      this.db
        .prepare(
          `UPDATE claims SET state = 'confirmed', tx_id = ?, confirmed_height = ? WHERE order_id = ? AND state <> 'confirmed'`,
        )
        .run(txId, height, orderId).changes === 1
    );
  }

  /** The funds went back to the user before any claim landed: the payment is lost, the claim no longer pending. */
  recordClaimLost(orderId: string): boolean {
    return (
      this.db
        .prepare(`UPDATE claims SET state = 'lost' WHERE order_id = ? AND state IN ('pending', 'broadcast')`)
        .run(orderId).changes === 1
    );
  }

  claim(orderId: string): ClaimRecord | undefined {
    const row = this.db.prepare('SELECT * FROM claims WHERE order_id = ?').get(orderId) as ClaimRow | undefined;
    return row === undefined ? undefined : claimFromRow(row);
  }

  /** Claims not yet confirmed nor lost, the nearest refund height first: the ones at risk lead. */
  openClaims(): ClaimRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM claims WHERE state IN ('pending', 'broadcast') ORDER BY refund_height, order_id`)
      .all() as ClaimRow[];
    return rows.map(claimFromRow);
  }
}

function quoteFromRow(row: QuoteRow): QuoteRecord {
  return {
    orderId: row.order_id,
    market: row.market,
    paymentHash: row.payment_hash,
    ...(row.invoice === null ? {} : { invoice: row.invoice }),
    invoiceAmountMillisatoshis: BigInt(row.invoice_amount_msat),
    onchainAmount: BigInt(row.onchain_amount),
    expiresAtMs: row.expires_at_ms,
    quotedAtMs: row.quoted_at_ms,
    won: row.won === 1,
    closed: row.closed === 1,
  };
}

function refundSignatureFromRow(row: RefundSignatureRow): RefundSignatureRecord {
  return {
    orderId: row.order_id,
    funder: row.funder,
    paymentHash: row.payment_hash,
    signature: row.signature,
    signedAtMs: row.signed_at_ms,
    reported: row.reported === 1,
  };
}

function paymentFromRow(row: PaymentRow): PaymentRecord {
  return {
    paymentHash: row.payment_hash,
    orderId: row.order_id,
    invoice: row.invoice,
    amountMillisatoshis: BigInt(row.amount_msat),
    feeLimitMillisatoshis: BigInt(row.fee_limit_msat),
    state: row.state,
    ...(row.preimage === null ? {} : { preimage: row.preimage }),
    ...(row.fee_msat === null ? {} : { feeMillisatoshis: BigInt(row.fee_msat) }),
    ...(row.failure_reason === null ? {} : { failureReason: row.failure_reason }),
    ...(row.suspect_reason === null ? {} : { suspectReason: row.suspect_reason }),
    ...(row.node_report === null ? {} : { nodeReport: row.node_report }),
    reported: row.reported === 1,
    startedAtMs: row.started_at_ms,
    ...(row.resolved_at_ms === null ? {} : { resolvedAtMs: row.resolved_at_ms }),
  };
}

function claimFromRow(row: ClaimRow): ClaimRecord {
  return {
    orderId: row.order_id,
    chain: row.chain,
    paymentHash: row.payment_hash,
    refundHeight: row.refund_height,
    state: row.state,
    ...(row.tx_id === null ? {} : { txId: row.tx_id }),
    ...(row.nonce === null ? {} : { nonce: row.nonce }),
    ...(row.fee === null ? {} : { fee: BigInt(row.fee) }),
    ...(row.fee_rate === null ? {} : { feeRate: BigInt(row.fee_rate) }),
    attempts: row.attempts,
    ...(row.broadcast_height === null ? {} : { broadcastHeight: row.broadcast_height }),
    ...(row.confirmed_height === null ? {} : { confirmedHeight: row.confirmed_height }),
  };
}

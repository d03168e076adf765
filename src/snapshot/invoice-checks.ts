import { readInvoice, type ReadInvoice } from '../domain/bolt11-reader.js';
import { hashInvoice } from '../domain/invoice.js';
import { SignaturePool } from './signature-pool.js';

export interface CheckedInvoice {
  /** Undefined when the invoice does not parse as BOLT11; its signature is checked separately. */
  readonly read: ReadInvoice | undefined;
  readonly invoiceHash: string;
}

/** The first record that carried an invoice, for naming it when its signature turns out bad. */
export interface InvoiceRecord {
  readonly index: number;
  readonly id: string | undefined;
}

/** Enough to cover invoices shared by neighbouring orders while keeping memory flat on huge imports. */
const MAX_REMEMBERED = 10_000;

/**
 * An import's invoices: each distinct one is parsed once, and its signature (the costly part) is
 * checked by a SignaturePool while the import goes on. A bad signature is pinned on the first
 * record that carried the invoice, the one an import that checked in order would have stopped at.
 */
export class InvoiceChecks {
  private readonly remembered = new Map<string, CheckedInvoice>();
  /** Checks under way, by number, with the record to blame should they fail. */
  private readonly awaitingVerdict = new Map<number, InvoiceRecord>();
  private earliestBad: InvoiceRecord | undefined;
  private currentRecord: InvoiceRecord = { index: -1, id: undefined };
  private readonly pool: SignaturePool;

  constructor(inlineChecks: number) {
    this.pool = new SignaturePool((checks, valid) => this.record(checks, valid), inlineChecks);
  }

  /** The record whose invoice `check` is about to be asked for. */
  beginRecord(index: number, id: string | undefined): void {
    this.currentRecord = { index, id };
  }

  check(invoice: string): CheckedInvoice {
    const known = this.remembered.get(invoice);
    if (known !== undefined) return known;
    const read = readInvoice(invoice);
    const checked = { read, invoiceHash: hashInvoice(invoice) };
    if (read !== undefined) {
      const record = this.currentRecord;
      this.awaitingVerdict.set(this.pool.nextCheckNumber, record);
      this.pool.submit(read);
    }
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
    this.remembered.set(invoice, checked);
    return checked;
  }

  /** Whether some signature already turned out bad (the earliest one may still be unknown). */
  get anyBadSignature(): boolean {
    return this.earliestBad !== undefined;
  }

  /** Waits for every verdict and names the earliest record whose invoice signature is bad, if any. */
  async earliestBadSignature(): Promise<InvoiceRecord | undefined> {
    await this.pool.settle();
    return this.earliestBad;
  }

  /** Lets the import run ahead of the signature checks by a bounded amount only. */
  async keepUp(): Promise<void> {
    await this.pool.below(MAX_OUTSTANDING_BATCHES);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private record(checks: readonly number[], valid: readonly boolean[]): void {
    checks.forEach((check, position) => {
      const record = this.awaitingVerdict.get(check);
      this.awaitingVerdict.delete(check);
      if (valid[position] || record === undefined) return;
      if (this.earliestBad === undefined || record.index < this.earliestBad.index) this.earliestBad = record;
    });
  }
}

/**
 * How far the import may run ahead of the signature checks: about 256,000 checks (33 MB packed). The
 * importer, at a higher priority than the checkers, is not held back by them while it reads, and they still
 * have work while it rebuilds indexes at the end (a million orders: a backlog of 170,000 to 230,000 checks).
 */
const MAX_OUTSTANDING_BATCHES = 1000;

/**
 * A child process of the import: checks batches of invoice signatures, the one step of validating
 * an order that costs more than everything else together (about 100 µs of curve arithmetic each).
 * A process, not a worker thread: the native secp256k1 binding keeps per-process state that breaks
 * (a double free) when it is loaded by several threads and one of them ends.
 */
import { checkInvoiceSignature, type ReadInvoice } from '../domain/bolt11-reader.js';

export interface SignatureBatch {
  readonly batch: number;
  readonly invoices: readonly ReadInvoice[];
}

export interface SignatureVerdicts {
  readonly batch: number;
  /** One per invoice, in order: whether its signature holds. */
  readonly valid: readonly boolean[];
}

process.on('message', ({ batch, invoices }: SignatureBatch) => {
  const verdicts: SignatureVerdicts = {
    batch,
    valid: invoices.map((invoice) => checkInvoiceSignature(invoice) !== undefined),
  };
  process.send?.(verdicts);
});
// The importer ends the batch work by disconnecting; so does its exit, however it happens.
process.on('disconnect', () => process.exit(0));

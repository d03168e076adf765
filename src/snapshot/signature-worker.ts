/**
 * A worker thread of the import: checks batches of invoice signatures, the one step of validating
 * an order that costs more than everything else together (about 100 µs of curve arithmetic each).
 */
import { parentPort } from 'node:worker_threads';
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

parentPort?.on('message', ({ batch, invoices }: SignatureBatch) => {
  const verdicts: SignatureVerdicts = {
    batch,
    valid: invoices.map((invoice) => checkInvoiceSignature(invoice) !== undefined),
  };
  parentPort?.postMessage(verdicts);
});

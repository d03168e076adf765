import { decodeInvoice, hashInvoice, type DecodedInvoice } from '../domain/invoice.js';

export interface CheckedInvoice {
  /** Undefined when the invoice is not a validly signed BOLT11 invoice. */
  readonly decoded: DecodedInvoice | undefined;
  readonly invoiceHash: string;
}

/** Enough to cover invoices shared by neighbouring orders while keeping memory flat on huge imports. */
const MAX_REMEMBERED = 10_000;

/**
 * Checking an invoice's signature is the slowest step of an import, and snapshots repeat
 * invoices (one invoice quoted on several markets), so each distinct invoice is checked once.
 */
export class InvoiceDecoder {
  private readonly remembered = new Map<string, CheckedInvoice>();

  check(invoice: string): CheckedInvoice {
    const known = this.remembered.get(invoice);
    if (known !== undefined) return known;
    const checked = { decoded: decodeInvoice(invoice), invoiceHash: hashInvoice(invoice) };
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
    this.remembered.set(invoice, checked);
    return checked;
  }
}

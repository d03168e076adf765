import bolt11 from 'bolt11';
import secp256k1 from 'secp256k1';
import type { InvoiceTerms } from '../../src/demo/lightning/bolt11-writer.js';

/**
 * Decodes with bolt11 (signature recovered and checked) and compares with the terms, so a bug in the fast signer
 * stops the bench instead of producing a dataset the service would reject.
 */
export function assertInvoiceDecodes(invoice: string, terms: InvoiceTerms): void {
  const decoded = bolt11.decode(invoice);
  const expectedPayee = Buffer.from(secp256k1.publicKeyCreate(terms.payeePrivateKey, true)).toString('hex');
  const tag = (name: string) => decoded.tags.find((entry) => entry.tagName === name)?.data;
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const mismatches = [
    decoded.payeeNodeKey !== expectedPayee && 'payee',
    decoded.satoshis !== terms.satoshis && 'amount',
    decoded.timestamp !== terms.timestampSeconds && 'timestamp',
    tag('payment_hash') !== hex(terms.paymentHash) && 'payment_hash',
    tag('payment_secret') !== hex(terms.paymentSecret) && 'payment_secret',
    tag('description') !== terms.description && 'description',
    tag('expire_time') !== terms.expirySeconds && 'expire_time',
  ].filter(Boolean);
  if (mismatches.length > 0) throw new Error(`bench invoice signer is broken: ${mismatches.join(', ')} differ`);
}

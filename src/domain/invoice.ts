import { hash } from 'node:crypto';
import { checkInvoiceSignature, readInvoice } from './bolt11-reader.js';
import { isHexOfLength } from './hex.js';
import type { Network } from './markets.js';

export interface DecodedInvoice {
  network: Network;
  /** 64 lowercase hex. */
  paymentHash: string;
  /** Absent when the invoice leaves the amount to the payer. */
  amountMillisatoshis?: bigint;
  timestampMs: number;
  expiresAtMs: number;
  /** 33-byte compressed key of the node that signed the invoice, hex. */
  payeePublicKey: string;
}

/**
 * Decodes a BOLT11 invoice and checks its signature. The signer's key is recovered and, when the
 * invoice names its payee (`n` field), the two must agree; without `n` the recovered key is the
 * payee, and BOLT11 then requires the signature in low-S form.
 * Never throws: anything that is not a valid signed invoice yields undefined.
 */
export function decodeInvoice(invoice: string): DecodedInvoice | undefined {
  const read = readInvoice(invoice);
  if (read === undefined) return undefined;
  const payeePublicKey = checkInvoiceSignature(read);
  if (payeePublicKey === undefined) return undefined;
  const { network, paymentHash, timestampMs, expiresAtMs, amountMillisatoshis } = read;
  return {
    network,
    paymentHash,
    ...(amountMillisatoshis === undefined ? {} : { amountMillisatoshis }),
    timestampMs,
    expiresAtMs,
    payeePublicKey,
  };
}

/**
 * The invoice hash clients look orders up by: SHA-256 of the invoice exactly as sent (UTF-8).
 * The one-shot `hash` rather than a Hash object: an import hashes a million invoices.
 */
export function hashInvoice(invoice: string): string {
  return hash('sha256', invoice, 'hex');
}

export function preimageMatchesPaymentHash(preimage: string, paymentHash: string): boolean {
  if (!isHexOfLength(preimage, 64) || !isHexOfLength(paymentHash, 64)) return false;
  return hash('sha256', Buffer.from(preimage, 'hex'), 'hex') === paymentHash.toLowerCase();
}

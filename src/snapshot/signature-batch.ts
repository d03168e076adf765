import { recoverSignerKey as bundledRecovery, type SignedInvoice } from '../domain/bolt11-reader.js';
import type { RecoverSignerKey } from './signer-recovery.js';

/**
 * Signature checks travel to the checker processes packed, a fixed-size record per invoice in one buffer:
 * cloning a batch of objects cost the importing thread more than packing it does, and a packed backlog of
 * 100,000 checks takes 13 MB.
 *
 * A record: the 32-byte signing hash, the 64-byte signature, one byte holding the recovery id (bit 7 set when
 * a payee key follows), and the 33-byte payee key or zeros.
 */
const SIGNING_HASH_BYTES = 32;
const SIGNATURE_BYTES = 64;
const PAYEE_KEY_BYTES = 33;
const SIGNATURE_OFFSET = SIGNING_HASH_BYTES;
const FLAGS_OFFSET = SIGNATURE_OFFSET + SIGNATURE_BYTES;
const PAYEE_OFFSET = FLAGS_OFFSET + 1;
const RECORD_BYTES = PAYEE_OFFSET + PAYEE_KEY_BYTES;
const HAS_PAYEE = 0x80;

/** A batch as posted to a checker process. */
export interface SignatureBatch {
  readonly batch: number;
  readonly checks: Uint8Array;
}

/** A checker's answer: for each check of the batch, in order, 1 when its signature holds, else 0. */
export interface SignatureVerdicts {
  readonly batch: number;
  readonly valid: Uint8Array;
}

export function packSignatureChecks(invoices: readonly SignedInvoice[]): Uint8Array {
  const packed = Buffer.alloc(invoices.length * RECORD_BYTES);
  invoices.forEach((invoice, index) => {
    const start = index * RECORD_BYTES;
    packed.write(invoice.signingHash, start, SIGNING_HASH_BYTES, 'hex');
    packed.write(invoice.signature, start + SIGNATURE_OFFSET, SIGNATURE_BYTES, 'hex');
    packed[start + FLAGS_OFFSET] = invoice.recoveryId | (invoice.payee === undefined ? 0 : HAS_PAYEE);
    if (invoice.payee !== undefined) packed.write(invoice.payee, start + PAYEE_OFFSET, PAYEE_KEY_BYTES, 'hex');
  });
  return packed;
}

/**
 * The verdicts of a packed batch, 1 where the signature holds (and, when the record names a payee, was made by
 * that key), read straight from the packed bytes: turning each record back into hex strings, only for
 * `checkInvoiceSignature` to turn them into bytes again, would add a few percent to every check (BENCHMARKS.md).
 */
export function checkPackedSignatures(
  packed: Uint8Array,
  recoverSignerKey: RecoverSignerKey = bundledRecovery,
): Uint8Array {
  const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  const valid = new Uint8Array(Math.floor(bytes.length / RECORD_BYTES));
  for (let check = 0; check < valid.length; check++) {
    const start = check * RECORD_BYTES;
    const flags = bytes[start + FLAGS_OFFSET]!;
    const signer = recoverSignerKey(
      bytes.subarray(start + SIGNATURE_OFFSET, start + FLAGS_OFFSET),
      flags & ~HAS_PAYEE,
      bytes.subarray(start, start + SIGNATURE_OFFSET),
    );
    const payee = (flags & HAS_PAYEE) === 0 ? undefined : bytes.subarray(start + PAYEE_OFFSET, start + RECORD_BYTES);
    valid[check] = signer !== undefined && (payee === undefined || payee.equals(signer)) ? 1 : 0;
  }
  return valid;
}

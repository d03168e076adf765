import { createHash } from 'node:crypto';
import { decode } from 'bolt11';
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

const NETWORK_BY_BECH32_PREFIX: Readonly<Record<string, Network>> = {
  bc: 'mainnet',
  tb: 'testnet',
  bcrt: 'simnet',
  sb: 'simnet',
};

/** BOLT11: "If the x field is not provided, the expiry is 3600 seconds." */
const DEFAULT_EXPIRY_SECONDS = 3600;

/**
 * Longer strings are refused before decoding, because the decoder's tag parsing is quadratic in
 * the invoice length. lnd draws the line at the same place: the most a single QR code holds.
 */
const MAX_INVOICE_LENGTH = 7089;

const SECP256K1_HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const PAYMENT_HASH_PATTERN = /^[0-9a-f]{64}$/;
const HEX_64_PATTERN = /^[0-9a-fA-F]{64}$/;

/**
 * Decodes a BOLT11 invoice and checks its signature. The decoder recovers the signer's key and,
 * when the invoice names its payee (`n` field), insists the two agree; without `n` the recovered
 * key is the payee, and BOLT11 then requires the signature in low-S form.
 * Never throws: anything that is not a valid signed invoice yields undefined.
 */
export function decodeInvoice(invoice: string): DecodedInvoice | undefined {
  if (typeof invoice !== 'string' || invoice.length > MAX_INVOICE_LENGTH) return undefined;
  try {
    const decoded = decode(invoice);
    const network = NETWORK_BY_BECH32_PREFIX[decoded.network?.bech32 ?? ''];
    if (network === undefined || decoded.timestamp === undefined || !decoded.payeeNodeKey) return undefined;

    const namesPayee = decoded.tags.some((tag) => tag.tagName === 'payee_node_key');
    if (!namesPayee && !isLowS(decoded.signature ?? '')) return undefined;

    // BOLT11 readers skip `p` fields of the wrong length; the first well-formed one counts.
    const paymentHash = decoded.tags.find(
      (tag) => tag.tagName === 'payment_hash' && typeof tag.data === 'string' && PAYMENT_HASH_PATTERN.test(tag.data),
    )?.data;
    if (typeof paymentHash !== 'string') return undefined;

    const expiryTag = decoded.tags.find((tag) => tag.tagName === 'expire_time')?.data;
    const expirySeconds = typeof expiryTag === 'number' ? expiryTag : DEFAULT_EXPIRY_SECONDS;
    const timestampMs = decoded.timestamp * 1000;
    const expiresAtMs = (decoded.timestamp + expirySeconds) * 1000;
    if (!Number.isSafeInteger(expiresAtMs)) return undefined;

    const result: DecodedInvoice = { network, paymentHash, timestampMs, expiresAtMs, payeePublicKey: decoded.payeeNodeKey };
    if (typeof decoded.millisatoshis === 'string') result.amountMillisatoshis = BigInt(decoded.millisatoshis);
    return result;
  } catch {
    return undefined;
  }
}

function isLowS(signatureHex: string): boolean {
  if (signatureHex.length !== 128) return false;
  return BigInt(`0x${signatureHex.slice(64)}`) <= SECP256K1_HALF_ORDER;
}

/** The invoice hash clients look orders up by: SHA-256 of the invoice exactly as sent. */
export function hashInvoice(invoice: string): string {
  return createHash('sha256').update(invoice, 'utf8').digest('hex');
}

export function preimageMatchesPaymentHash(preimage: string, paymentHash: string): boolean {
  if (!HEX_64_PATTERN.test(preimage) || !HEX_64_PATTERN.test(paymentHash)) return false;
  const digest = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
  return digest === paymentHash.toLowerCase();
}

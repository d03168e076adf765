import { createECDH, createHash, randomBytes } from 'node:crypto';
import { encode, sign, type PaymentRequestObject } from 'bolt11';
import { bytesToWords, joinBech32, splitBech32 } from '../../src/domain/bech32.js';
import type { Network } from '../../src/domain/markets.js';

/** A throwaway node key: every invoice signed here is a real BOLT11 invoice from this node. */
export const TEST_NODE_PRIVATE_KEY = 'ef58e36c328b7a7193fbb37435f9f6c01091a07d24e876a747f09363b12945b3';

/** Compressed public key of TEST_NODE_PRIVATE_KEY, hex: what a decoder recovers from these invoices. */
export const TEST_NODE_PUBLIC_KEY = publicKeyOf(TEST_NODE_PRIVATE_KEY);

function publicKeyOf(privateKeyHex: string): string {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, 'hex'));
  return ecdh.getPublicKey('hex', 'compressed');
}

export interface InvoiceSpec {
  network: Network;
  amountSatoshis?: bigint;
  /** 64 hex; random when omitted. */
  preimage?: string;
  /** Defaults to now. */
  timestampSeconds?: number;
  /** Omitted: the invoice carries no expiry field, so the BOLT11 default of 3600 s applies. */
  expirySeconds?: number;
  description?: string;
  /** Name the payee in an `n` field, so readers check the signature against it instead of recovering the key. */
  namePayee?: boolean;
}

export interface SignedInvoice {
  invoice: string;
  paymentHash: string;
  preimage: string;
}

const BOLT11_NETWORKS: Record<Network, NonNullable<PaymentRequestObject['network']>> = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  simnet: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};

function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Signs a BOLT11 invoice with TEST_NODE_PRIVATE_KEY. Deterministic when `preimage` and
 * `timestampSeconds` are given (RFC 6979 signatures, payment secret derived from the preimage).
 */
export function makeInvoice(spec: InvoiceSpec): SignedInvoice {
  const preimage = (spec.preimage ?? randomBytes(32).toString('hex')).toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(preimage)) throw new Error('makeInvoice: preimage must be 64 hex digits');
  const preimageBytes = Buffer.from(preimage, 'hex');
  const paymentHash = sha256Hex(preimageBytes);
  const paymentSecret = sha256Hex(Buffer.concat([Buffer.from('payment secret:'), preimageBytes]));
  return { invoice: signInvoice(spec, paymentHash, paymentSecret), paymentHash, preimage };
}

/**
 * An invoice for a payment hash whose preimage the maker does not know, as anyone who read the hash can make
 * (signed with TEST_NODE_PRIVATE_KEY; `spec.preimage` is not used).
 */
export function makeInvoiceForHash(spec: InvoiceSpec, paymentHash: string): string {
  if (!/^[0-9a-f]{64}$/.test(paymentHash)) throw new Error('makeInvoiceForHash: payment hash must be 64 lowercase hex');
  return signInvoice(spec, paymentHash, sha256Hex(Buffer.from(`payment secret for ${paymentHash}`)));
}

function signInvoice(spec: InvoiceSpec, paymentHash: string, paymentSecret: string): string {
  const tags: PaymentRequestObject['tags'] = [
    { tagName: 'payment_hash', data: paymentHash },
    { tagName: 'payment_secret', data: paymentSecret },
    { tagName: 'description', data: spec.description ?? 'lnswap test invoice' },
    { tagName: 'min_final_cltv_expiry', data: 40 },
    {
      tagName: 'feature_bits',
      data: { word_length: 4, var_onion_optin: { required: true }, payment_secret: { required: true } },
    },
  ];
  if (spec.expirySeconds !== undefined) tags.push({ tagName: 'expire_time', data: spec.expirySeconds });
  if (spec.namePayee) tags.push({ tagName: 'payee_node_key', data: TEST_NODE_PUBLIC_KEY });

  const unsigned = encode(
    {
      network: BOLT11_NETWORKS[spec.network],
      timestamp: spec.timestampSeconds ?? Math.floor(Date.now() / 1000),
      ...(spec.amountSatoshis === undefined ? {} : { millisatoshis: (spec.amountSatoshis * 1000n).toString() }),
      tags,
    },
    false,
  );
  const signed = sign(unsigned, TEST_NODE_PRIVATE_KEY);
  if (!signed.paymentRequest) throw new Error('makeInvoice: bolt11 did not produce a payment request');
  return signed.paymentRequest;
}

/** 64-byte signature plus one recovery byte, in 5-bit words. */
const SIGNATURE_WORDS = 104;

/**
 * The same invoice with another signature (64 hex bytes r||s and a recovery flag) and a freshly
 * computed bech32 checksum, so only the signature check can tell it apart.
 */
export function withSignature(invoice: string, signatureHex: string, recoveryFlag: number): string {
  const parts = splitBech32(invoice);
  if (parts === undefined) throw new Error(`not bech32: ${invoice}`);
  const words = [...parts.words];
  const signatureBytes = Buffer.concat([Buffer.from(signatureHex, 'hex'), Buffer.from([recoveryFlag])]);
  return joinBech32(parts.prefix, [...words.slice(0, -SIGNATURE_WORDS), ...bytesToWords(signatureBytes)]);
}

/**
 * The lean BOLT11 reader against the `bolt11` package it replaced: over invoices built word by
 * word (every field kind, malformed lengths, amounts, fallback addresses, signatures valid, high-S,
 * foreign or forged), both must accept the same invoices and read the same values from them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { decode } from 'bolt11';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import secp256k1 from 'secp256k1';
import { bytesToWords, joinBech32 } from '../../src/domain/bech32.js';
import { readInvoice } from '../../src/domain/bolt11-reader.js';
import { decodeInvoice, type DecodedInvoice } from '../../src/domain/invoice.js';
import type { Network } from '../../src/domain/markets.js';
import { TEST_NODE_PRIVATE_KEY, TEST_NODE_PUBLIC_KEY } from '../support/invoices.js';

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const OTHER_PRIVATE_KEY = '11'.repeat(32);

/** The decoder as it was before the reader, on top of the `bolt11` package. */
function referenceDecode(invoice: string): DecodedInvoice | undefined {
  if (invoice.length > 7089) return undefined;
  const networks: Record<string, Network> = { bc: 'mainnet', tb: 'testnet', bcrt: 'simnet', sb: 'simnet' };
  try {
    const decoded = decode(invoice);
    const network = networks[decoded.network?.bech32 ?? ''];
    if (network === undefined || decoded.timestamp === undefined || !decoded.payeeNodeKey) return undefined;
    const namesPayee = decoded.tags.some((tag) => tag.tagName === 'payee_node_key');
    const halfOrder = SECP256K1_ORDER / 2n;
    if (!namesPayee && BigInt(`0x${(decoded.signature ?? '').slice(64)}`) > halfOrder) return undefined;
    const paymentHash = decoded.tags.find(
      (tag) => tag.tagName === 'payment_hash' && typeof tag.data === 'string' && /^[0-9a-f]{64}$/.test(tag.data),
    )?.data;
    if (typeof paymentHash !== 'string') return undefined;
    const expiryTag = decoded.tags.find((tag) => tag.tagName === 'expire_time')?.data;
    const expirySeconds = typeof expiryTag === 'number' ? expiryTag : 3600;
    const expiresAtMs = (decoded.timestamp + expirySeconds) * 1000;
    if (!Number.isSafeInteger(expiresAtMs)) return undefined;
    const result: DecodedInvoice = {
      network,
      paymentHash,
      timestampMs: decoded.timestamp * 1000,
      expiresAtMs,
      payeePublicKey: decoded.payeeNodeKey,
    };
    if (typeof decoded.millisatoshis === 'string') result.amountMillisatoshis = BigInt(decoded.millisatoshis);
    return result;
  } catch {
    return undefined;
  }
}

function numberToWords(value: number, length: number): number[] {
  return Array.from({ length }, (_, index) => Math.floor(value / 32 ** (length - 1 - index)) % 32);
}

type SignatureKind = 'valid' | 'high-s' | 'other key' | 'forged' | 'bad recovery id';

interface InvoiceParts {
  prefix: string;
  timestamp: number;
  tags: { code: number; words: number[] }[];
  signature: SignatureKind;
}

function assemble({ prefix, timestamp, tags, signature }: InvoiceParts): string {
  const data = [...numberToWords(timestamp, 7)];
  for (const { code, words } of tags) data.push(code, ...numberToWords(words.length, 2), ...words);
  const wordBytes = Buffer.from(wordsToPaddedBytes(data));
  const digest = createHash('sha256')
    .update(Buffer.concat([Buffer.from(prefix), wordBytes]))
    .digest();
  const key = Buffer.from(signature === 'other key' ? OTHER_PRIVATE_KEY : TEST_NODE_PRIVATE_KEY, 'hex');
  const signed = secp256k1.ecdsaSign(digest, key);
  let bytes = Buffer.from(signed.signature);
  let recoveryId = signed.recid;
  if (signature === 'high-s') {
    const s = SECP256K1_ORDER - BigInt(`0x${bytes.subarray(32).toString('hex')}`);
    bytes = Buffer.concat([bytes.subarray(0, 32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex')]);
    recoveryId ^= 1;
  }
  if (signature === 'forged') bytes = Buffer.from(createHash('sha512').update(digest).digest());
  if (signature === 'bad recovery id') recoveryId = 4;
  return joinBech32(prefix, [...data, ...bytesToWords(Buffer.concat([bytes, Buffer.from([recoveryId])]))]);
}

function wordsToPaddedBytes(words: readonly number[]): number[] {
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const word of words) {
    accumulator = ((accumulator << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >> bits) & 0xff);
    }
  }
  if (bits > 0) bytes.push((accumulator << (8 - bits)) & 0xff);
  return bytes;
}

const word = fc.integer({ min: 0, max: 31 });
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max });
const keyWords = bytesToWords(Buffer.from(TEST_NODE_PUBLIC_KEY, 'hex'));

const tag = fc.oneof(
  fc.record({ code: fc.constant(1), words: fc.oneof(words(52, 52), words(50, 54)) }),
  fc.record({ code: fc.constant(6), words: fc.oneof(words(1, 4), words(5, 12)) }),
  // Expiries around the last time a Date can hold, which the bolt11 package could not print.
  fc.record({
    code: fc.constant(6),
    words: fc.integer({ min: 8_630_000_000_000, max: 8_650_000_000_000 }).map((seconds) => numberToWords(seconds, 9)),
  }),
  fc.record({ code: fc.constant(19), words: fc.oneof(fc.constant(keyWords), words(52, 54)) }),
  fc.record({
    code: fc.constant(9),
    words: fc.tuple(fc.constantFrom(0, 1, 2, 17, 18), words(0, 90)).map(([version, rest]) => [version, ...rest]),
  }),
  fc.record({ code: fc.constantFrom(3, 5, 13, 16, 23, 24, 27), words: words(0, 70) }),
);

const amount = fc.oneof(
  fc.constant(''),
  fc
    .tuple(
      fc.constantFrom('0', '1', '10', '25', '2500', '21000000', '99999999999', '0001'),
      fc.constantFrom('', 'm', 'u', 'n', 'p', 'x'),
    )
    .map(([value, multiplier]) => value + multiplier),
);

const invoiceParts: fc.Arbitrary<InvoiceParts> = fc.record({
  prefix: fc
    .tuple(fc.constantFrom('bc', 'bc', 'tb', 'bcrt', 'sb', 'tbs', 'xx'), amount)
    .map(([network, value]) => `ln${network}${value}`),
  timestamp: fc.oneof(fc.integer({ min: 0, max: 2 ** 35 - 1 }), fc.constant(1_600_000_000)),
  // Most invoices get a well-formed payment hash somewhere among the other fields, or nothing could be valid.
  tags: fc
    .tuple(fc.array(tag, { maxLength: 5 }), fc.option(words(52, 52), { freq: 4 }), fc.nat())
    .map(([others, paymentHash, position]) =>
      paymentHash === null
        ? others
        : [
            ...others.slice(0, position % (others.length + 1)),
            { code: 1, words: paymentHash },
            ...others.slice(position % (others.length + 1)),
          ],
    ),
  signature: fc.constantFrom<SignatureKind>(
    'valid',
    'valid',
    'valid',
    'high-s',
    'other key',
    'forged',
    'bad recovery id',
  ),
});

describe('the lean BOLT11 reader', () => {
  test('accepts and reads exactly what the bolt11 package did', () => {
    let accepted = 0;
    fc.assert(
      fc.property(invoiceParts, fc.boolean(), (parts, upperCase) => {
        const invoice = assemble(parts);
        const text = upperCase ? invoice.toUpperCase() : invoice;
        const expected = referenceDecode(text);
        assert.deepEqual(decodeInvoice(text), expected, text);
        if (expected !== undefined) accepted++;
      }),
      { seed: PROPERTY_SEED, numRuns: 3000 },
    );
    // The comparison means little unless both sides accept a fair share of what they are shown.
    assert.ok(accepted > 400, `only ${accepted} invoices were valid`);
  });

  test('parses without checking the signature, so a forged one still reads', () => {
    const forged = assemble({
      prefix: 'lnbc2500u',
      timestamp: 1_600_000_000,
      tags: [
        { code: 1, words: Array(52).fill(3) },
        { code: 19, words: keyWords },
      ],
      signature: 'forged',
    });
    const read = readInvoice(forged);
    assert.equal(read?.network, 'mainnet');
    assert.equal(read?.amountMillisatoshis, 250_000_000n);
    assert.equal(decodeInvoice(forged), undefined);
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import bolt11 from 'bolt11';
import secp256k1 from 'secp256k1';
import { signInvoice, type InvoiceTerms } from '../../../src/demo/lightning/bolt11-writer.js';
import { decodeInvoice } from '../../../src/domain/invoice.js';
import type { Network } from '../../../src/domain/markets.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

function terms(network: Network, satoshis: number): InvoiceTerms {
  return {
    network,
    payeePrivateKey: sha256('payee'),
    satoshis,
    timestampSeconds: 1_700_000_000,
    paymentHash: sha256('preimage'),
    paymentSecret: sha256('secret'),
    description: 'a test payment',
    expirySeconds: 900,
  };
}

for (const [network, prefix] of [
  ['mainnet', 'lnbc'],
  ['testnet', 'lntb'],
  ['simnet', 'lnbcrt'],
] as const) {
  test(`a written ${network} invoice carries its terms, under the ${prefix} prefix, signed by the payee`, () => {
    const invoiceTerms = terms(network, 20_100);
    const invoice = signInvoice(invoiceTerms);
    assert.ok(invoice.startsWith(`${prefix}201u1`), invoice);
    const payee = Buffer.from(secp256k1.publicKeyCreate(invoiceTerms.payeePrivateKey, true)).toString('hex');
    assert.deepEqual(decodeInvoice(invoice), {
      network,
      paymentHash: sha256('preimage').toString('hex'),
      amountMillisatoshis: 20_100_000n,
      timestampMs: 1_700_000_000_000,
      expiresAtMs: 1_700_000_900_000,
      payeePublicKey: payee,
    });
    const decoded = bolt11.decode(
      invoice,
      network === 'simnet'
        ? { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] }
        : undefined,
    );
    assert.equal(decoded.payeeNodeKey, payee, "bolt11's own decoder recovers the same payee");
    assert.equal(decoded.tags.find((tag) => tag.tagName === 'description')?.data, 'a test payment');
  });
}

test('the amount is written in the largest unit that keeps it whole', () => {
  assert.match(signInvoice(terms('mainnet', 300_000)), /^lnbc3m1/);
  assert.match(signInvoice(terms('mainnet', 1_234)), /^lnbc12340n1/);
});

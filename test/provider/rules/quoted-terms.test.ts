import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeInvoice, judgeServiceAnswer, type TermReading } from '../../../src/provider/rules/quoted-terms.js';
import { makeInvoice } from '../../support/invoices.js';

describe("the service's answers held to the provider's quote", () => {
  const preimage = '11'.repeat(32);
  const quoted = makeInvoice({ network: 'simnet', amountSatoshis: 24_000n, preimage, timestampSeconds: 1_700_000_000 });
  const quote = { invoice: quoted.invoice, paymentHash: quoted.paymentHash, invoiceAmountMillisatoshis: 24_000_000n };

  test('the invoice quoted for is as quoted, in either case (BOLT11 is case-insensitive)', () => {
    assert.deepEqual(judgeInvoice(quote, quoted.invoice), { kind: 'as-quoted' });
    assert.deepEqual(judgeInvoice(quote, quoted.invoice.toUpperCase()), { kind: 'as-quoted' });
  });

  test('an invoice of the same payment hash for ten times the amount contradicts the quote: both invoices and amounts named', () => {
    const tenfold = makeInvoice({
      network: 'simnet',
      amountSatoshis: 240_000n,
      preimage,
      timestampSeconds: 1_700_000_000,
    });
    assert.equal(tenfold.paymentHash, quoted.paymentHash);
    assert.deepEqual(judgeInvoice(quote, tenfold.invoice), {
      kind: 'contradicts-quote',
      differences: [
        { term: 'invoice', quoted: quoted.invoice, answered: tenfold.invoice },
        { term: 'invoiceAmount', quoted: '24000000', answered: '240000000' },
      ],
    });
  });

  test('one millisatoshi more, another hash, or another invoice of the same hash and amount: each contradicts the quote', () => {
    const terms = (answered: string) => {
      const answer = judgeInvoice(quote, answered);
      return answer.kind === 'contradicts-quote' ? answer.differences.map(({ term }) => term) : answer.kind;
    };
    const oneMore = makeInvoice({
      network: 'simnet',
      amountSatoshis: 24_001n,
      preimage,
      timestampSeconds: 1_700_000_000,
    });
    assert.deepEqual(terms(oneMore.invoice), ['invoice', 'invoiceAmount']);
    const otherHash = makeInvoice({ network: 'simnet', amountSatoshis: 24_000n, timestampSeconds: 1_700_000_000 });
    assert.deepEqual(terms(otherHash.invoice), ['invoice', 'paymentHash']);
    // Same hash and amount, made a second later: another invoice (another expiry, signature), still not the one quoted.
    const later = makeInvoice({
      network: 'simnet',
      amountSatoshis: 24_000n,
      preimage,
      timestampSeconds: 1_700_000_001,
    });
    assert.deepEqual(terms(later.invoice), ['invoice']);
    assert.deepEqual(terms('lnbcrt-not-an-invoice'), ['invoice', 'invoiceAmount', 'paymentHash']);
  });

  test('a quote written before invoices were kept is held to its hash and amount only', () => {
    const legacy = { paymentHash: quote.paymentHash, invoiceAmountMillisatoshis: quote.invoiceAmountMillisatoshis };
    const later = makeInvoice({
      network: 'simnet',
      amountSatoshis: 24_000n,
      preimage,
      timestampSeconds: 1_700_000_001,
    });
    assert.deepEqual(judgeInvoice(legacy, later.invoice), { kind: 'as-quoted' });
    const tenfold = makeInvoice({ network: 'simnet', amountSatoshis: 240_000n, preimage });
    assert.equal(judgeInvoice(legacy, tenfold.invoice).kind, 'contradicts-quote');
  });

  const funding = (answered: Partial<Record<'claimer' | 'contract' | 'amount', string | undefined>>): TermReading[] => [
    { term: 'claimer', quoted: '0xpayout', answered: 'claimer' in answered ? answered.claimer : '0xpayout' },
    { term: 'contract', quoted: '0xcontract', answered: 'contract' in answered ? answered.contract : '0xcontract' },
    { term: 'amount', quoted: '1000', answered: 'amount' in answered ? answered.amount : '1000' },
  ];

  test("funding details naming another claimer are another provider's quote (an auction lost), whatever else differs", () => {
    assert.deepEqual(judgeServiceAnswer(funding({}), 'claimer'), { kind: 'as-quoted' });
    assert.deepEqual(judgeServiceAnswer(funding({ claimer: '0xother', amount: '5' }), 'claimer'), {
      kind: 'another-quote',
    });
    assert.deepEqual(judgeServiceAnswer(funding({ claimer: undefined }), 'claimer'), { kind: 'another-quote' });
  });

  test("the provider's claimer with another contract or amount contradicts the quote, each term named", () => {
    assert.deepEqual(judgeServiceAnswer(funding({ contract: '0xelsewhere' }), 'claimer'), {
      kind: 'contradicts-quote',
      differences: [{ term: 'contract', quoted: '0xcontract', answered: '0xelsewhere' }],
    });
    assert.deepEqual(judgeServiceAnswer(funding({ amount: '999', contract: undefined }), 'claimer'), {
      kind: 'contradicts-quote',
      differences: [
        { term: 'contract', quoted: '0xcontract', answered: undefined },
        { term: 'amount', quoted: '1000', answered: '999' },
      ],
    });
  });
});

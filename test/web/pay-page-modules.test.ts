/** The pay page's pure modules, loaded from web/pay/ as the browser loads them (they are JavaScript, not built). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SimulatedLightningPayee } from '../../src/demo/lightning/simulated-lightning-payee.js';
import { repositoryPath } from '../support/repository.js';

interface ReadInvoice {
  readonly refusal?: string;
  readonly network?: string;
  readonly satoshis?: bigint;
  readonly millisatoshis?: bigint;
  readonly description?: string;
  readonly expiresAtMs?: number;
}
type PayReq = { minExpirationSeconds: string; minBaseUnits: string; maxBaseUnits: string };

const load = async <T>(file: string) => (await import(pathToFileURL(repositoryPath('web', 'pay', file)).href)) as T;
const { readInvoice } = await load<{ readInvoice: (text: string, nowMs: number) => ReadInvoice }>('invoice.js');
const { fitMarkets } = await load<{
  fitMarkets: (
    invoice: ReadInvoice,
    requirements: { market: string; payReq: PayReq }[],
    nowMs: number,
  ) => { market: string; misfit?: string }[];
}>('market-fit.js');
const { sentence } = await load<{ sentence: (token: string) => string }>('sentences.js');
const { pricePerBitcoin } = await load<{ pricePerBitcoin: (amount: string, satoshis: bigint) => string }>('amounts.js');

const payee = new SimulatedLightningPayee(() => undefined);
const payReq = { minExpirationSeconds: '900', minBaseUnits: '1000', maxBaseUnits: '1000000' };

test('readInvoice reads the amount, network, description and expiry of a BOLT11 invoice, and refuses others', () => {
  const now = Date.now();
  const read = readInvoice(`  lightning:${payee.createInvoice(21_000, true).invoice.toUpperCase()} `, now);
  assert.equal(read.refusal, undefined);
  assert.equal(read.network, 'simnet');
  assert.equal(read.satoshis, 21_000n);
  assert.equal(read.millisatoshis, 21_000_000n);
  assert.equal(read.description, 'lnswap demo: a swap that completes');
  assert.ok(Math.abs(read.expiresAtMs! - (now + 3_600_000)) < 5_000);
  assert.equal(readInvoice('lnbc1qqqq', now).refusal, 'InvalidInvoice');
  assert.equal(readInvoice(payee.createInvoice(21_000, true).invoice, now + 3_601_000).refusal, 'InvoiceExpired');
});

test('fitMarkets says in a sentence why each market cannot take the invoice, in the order the service checks', () => {
  const now = Date.now();
  const requirements = [
    { market: 'BTC_LBTC', payReq },
    { market: 'SETH_LSBTC', payReq },
    { market: 'SUSDC_LSBTC', payReq: { ...payReq, minExpirationSeconds: '7200' } },
    { market: 'SETH2_LSBTC', payReq: { ...payReq, maxBaseUnits: '20000' } },
  ];
  const fits = fitMarkets(readInvoice(payee.createInvoice(21_000, true).invoice, now), requirements, now);
  assert.deepEqual(
    fits.map(({ market, misfit }) => [market, misfit]),
    [
      ['BTC_LBTC', 'BTC_LBTC pays mainnet invoices, and this one is for simnet.'],
      ['SETH_LSBTC', undefined],
      ['SUSDC_LSBTC', fits[2]!.misfit],
      ['SETH2_LSBTC', 'SETH2_LSBTC pays invoices of at most 20000 sat, and this one asks for 21000 sat.'],
    ],
  );
  // Within the same second as the invoice was signed or the next: its timestamp is in whole seconds.
  assert.match(
    fits[2]!.misfit ?? '',
    /^SUSDC_LSBTC needs an invoice valid for at least 7200 s, and this one expires in 3[56]\d\d s\.$/,
  );
  // Millisatoshis compared exactly: 999.999 sat is below a 1000 sat minimum.
  const below = {
    ...readInvoice(payee.createInvoice(1_000, true).invoice, now),
    millisatoshis: 999_999n,
    satoshis: 999n,
  };
  assert.match(fitMarkets(below, [{ market: 'SETH_LSBTC', payReq }], now)[0]!.misfit ?? '', /1000 sat or more/);
});

test('every refusal token the service sends a user reads as a sentence, never as the token', () => {
  for (const token of [
    'InvalidMarket',
    'InvalidInvoice',
    'InvalidMarketForInvoice',
    'InvalidRefundAddress',
    'NoQuoteProvidersAvailable',
    'NoQuoteProvidersForTheRequestedMarket',
    'InvoiceExpiresTooSoon',
    'InvoiceAmountBelowMinimum',
    'InvoiceAmountAboveMaximum',
    'SwapAlreadyInProgress',
    'TooManySwapsInFlight',
    'NoQuotesAvailable',
  ]) {
    const text = sentence(token);
    assert.ok(!text.includes(token) && /^[A-Z].*\.$/.test(text), `${token}: ${text}`);
  }
});

test('pricePerBitcoin scales the quoted amount to a whole bitcoin exactly', () => {
  assert.equal(pricePerBitcoin('0.006331500000000000', 21_000n), '30.15');
  assert.equal(pricePerBitcoin('6.930000', 23_000n), '30130.434782');
});

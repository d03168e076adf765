import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catalogOf, KNOWN_CATALOG } from '../../../src/domain/market-catalog.js';
import { checkQuoteRequest, type QuoteRequestContext } from '../../../src/engine/lifecycle/quote-request.js';
import { payReq, provider } from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import { legacyRefundAddressFor, refundAddressFor, scriptHashAddressFor } from '../../support/engine/helpers.js';
import { refusal as tokenOfRefusal } from '../../support/refusal.js';

const NOW = Date.UTC(2024, 0, 1);
const NOW_SECONDS = NOW / 1000;

const context: QuoteRequestContext = {
  catalog: KNOWN_CATALOG,
  offeredMarkets: ['BTC_LBTC', 'ETH_LBTC', 'TBTC_LTBTC'],
  providers: [
    provider('maker-a', true, { BTC_LBTC: payReq(3600n, 1000n, 100_000n), ETH_LBTC: payReq(7200n, 5000n, 50_000n) }),
    provider('maker-b', true, { BTC_LBTC: payReq(1800n, 2000n, 200_000n) }),
    provider('maker-off', false, { TBTC_LTBTC: payReq(60n, 1n, 10n) }),
  ],
  now: NOW,
};

function invoiceOf(
  amountSatoshis: bigint | undefined,
  expirySeconds = 7200,
  network: 'mainnet' | 'testnet' = 'mainnet',
) {
  return makeInvoice({
    network,
    ...(amountSatoshis === undefined ? {} : { amountSatoshis }),
    timestampSeconds: NOW_SECONDS,
    expirySeconds,
  });
}

function refusal(payload: unknown, overrides: Partial<QuoteRequestContext> = {}): string {
  return tokenOfRefusal(() => checkQuoteRequest(payload, { ...context, ...overrides }));
}

describe('checkQuoteRequest', () => {
  const { invoice, paymentHash } = invoiceOf(50_000n);
  const refundAddress = refundAddressFor('user');

  test('accepts a Bitcoin request and reads what the auction needs', () => {
    const request = checkQuoteRequest({ market: 'btc_lbtc', invoice, refundAddress }, context);
    assert.equal(request.market.name, 'BTC_LBTC');
    assert.equal(request.paymentHash, paymentHash);
    assert.equal(request.amountMillisatoshis, 50_000_000n);
    assert.equal(request.refundAddress, refundAddress);
    // The loosest terms of the two providers serving the market.
    assert.deepEqual(request.requirements, payReq(1800n, 1000n, 200_000n));
  });

  test('accepts an Ethereum request without a refund address, and a legacy Bitcoin refund address', () => {
    assert.equal(checkQuoteRequest({ market: 'ETH_LBTC', invoice }, context).refundAddress, undefined);
    const legacy = legacyRefundAddressFor('user');
    assert.equal(
      checkQuoteRequest({ market: 'BTC_LBTC', invoice, refundAddress: legacy }, context).refundAddress,
      legacy,
    );
    assert.equal(
      checkQuoteRequest({ market: 'ETH_LBTC', invoice, refundAddress: null }, context).refundAddress,
      undefined,
    );
  });

  test("a configured token's market is quoted like ETH_LBTC, in any case; without its token it is no market", () => {
    const usdc = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 } as const;
    const withUsdc: Partial<QuoteRequestContext> = {
      catalog: catalogOf({ tokens: [usdc] }),
      offeredMarkets: [...context.offeredMarkets, 'USDC_LBTC'],
      providers: [provider('maker-usdc', true, { USDC_LBTC: payReq(3600n, 1000n, 100_000n) })],
    };
    const request = checkQuoteRequest({ market: 'usdc_lbtc', invoice }, { ...context, ...withUsdc });
    assert.equal(request.market.name, 'USDC_LBTC');
    assert.equal(request.market.onchain.tokenAddress, usdc.address);
    assert.equal(request.market.onchain.decimals, 6);
    assert.equal(refusal({ market: 'USDC_LBTC', invoice }, { ...withUsdc, catalog: KNOWN_CATALOG }), 'InvalidMarket');
    assert.equal(
      refusal({ market: 'USDC_LBTC', invoice }, { ...withUsdc, offeredMarkets: ['BTC_LBTC'] }),
      'InvalidMarket',
    );
  });

  test('InvalidOrMissingQuoteRequestFields for a payload that is not the documented object', () => {
    for (const payload of [
      null,
      'x',
      [],
      {},
      { market: 'BTC_LBTC' },
      { invoice },
      { market: 1, invoice },
      { market: 'BTC_LBTC', invoice: '' },
    ]) {
      assert.equal(refusal(payload), 'InvalidOrMissingQuoteRequestFields', JSON.stringify(payload));
    }
    assert.equal(refusal({ market: 'BTC_LBTC', invoice, refundAddress: 7 }), 'InvalidOrMissingQuoteRequestFields');
  });

  test('InvalidMarket for unknown and unoffered markets', () => {
    assert.equal(refusal({ market: 'DOGE_LBTC', invoice, refundAddress }), 'InvalidMarket');
    assert.equal(refusal({ market: 'SBTC_LSBTC', invoice, refundAddress }), 'InvalidMarket');
  });

  test('InvalidInvoice for garbage, a broken checksum and an invoice without an amount', () => {
    assert.equal(refusal({ market: 'BTC_LBTC', invoice: 'lnbc1garbage', refundAddress }), 'InvalidInvoice');
    const tampered = invoice.slice(0, -8) + (invoice.endsWith('qqqqqqqq') ? 'pppppppp' : 'qqqqqqqq');
    assert.equal(refusal({ market: 'BTC_LBTC', invoice: tampered, refundAddress }), 'InvalidInvoice');
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice: invoiceOf(undefined).invoice, refundAddress }),
      'InvalidInvoice',
    );
  });

  test('InvalidMarketForInvoice when the invoice is for another network', () => {
    const testnet = invoiceOf(50_000n, 7200, 'testnet').invoice;
    assert.equal(refusal({ market: 'BTC_LBTC', invoice: testnet, refundAddress }), 'InvalidMarketForInvoice');
  });

  test('InvalidRefundAddress: missing on Bitcoin, wrong network, no key hash, bad Ethereum address', () => {
    assert.equal(refusal({ market: 'BTC_LBTC', invoice }), 'InvalidRefundAddress');
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice, refundAddress: refundAddressFor('user', 'testnet') }),
      'InvalidRefundAddress',
    );
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice, refundAddress: scriptHashAddressFor('user') }),
      'InvalidRefundAddress',
    );
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice, refundAddress: '0xf0398fad8c2aa38c476b010c269158d442730e98' }),
      'InvalidRefundAddress',
    );
    assert.equal(refusal({ market: 'ETH_LBTC', invoice, refundAddress }), 'InvalidRefundAddress');
    assert.equal(
      refusal({ market: 'ETH_LBTC', invoice, refundAddress: '0xF0398fad8c2aa38c476b010c269158d442730e98' }),
      'InvalidRefundAddress',
    );
  });

  test('NoQuoteProvidersAvailable and NoQuoteProvidersForTheRequestedMarket follow the active providers', () => {
    const inactive = context.providers.map((record) => ({ ...record, active: false }));
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice, refundAddress }, { providers: inactive }),
      'NoQuoteProvidersAvailable',
    );
    const testnetInvoice = invoiceOf(5n, 7200, 'testnet').invoice;
    const testnetRefund = refundAddressFor('user', 'testnet');
    assert.equal(
      refusal({ market: 'TBTC_LTBTC', invoice: testnetInvoice, refundAddress: testnetRefund }),
      'NoQuoteProvidersForTheRequestedMarket',
    );
  });

  test('InvoiceExpiresTooSoon below the smallest minExpirationSeconds of the market', () => {
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice: invoiceOf(50_000n, 1799).invoice, refundAddress }),
      'InvoiceExpiresTooSoon',
    );
    assert.doesNotThrow(() =>
      checkQuoteRequest({ market: 'BTC_LBTC', invoice: invoiceOf(50_000n, 1800).invoice, refundAddress }, context),
    );
    // ETH_LBTC has only maker-a, which needs two hours.
    assert.equal(refusal({ market: 'ETH_LBTC', invoice: invoiceOf(50_000n, 7199).invoice }), 'InvoiceExpiresTooSoon');
    // Time passing counts: an invoice issued long ago has less time left.
    assert.equal(
      refusal(
        { market: 'BTC_LBTC', invoice: invoiceOf(50_000n, 3600).invoice, refundAddress },
        { now: NOW + 1_800_001 },
      ),
      'InvoiceExpiresTooSoon',
    );
  });

  test('InvoiceAmountBelowMinimum and InvoiceAmountAboveMaximum at the exact satoshi bounds', () => {
    const at = (satoshis: bigint) => ({ market: 'BTC_LBTC', invoice: invoiceOf(satoshis).invoice, refundAddress });
    assert.equal(refusal(at(999n)), 'InvoiceAmountBelowMinimum');
    assert.doesNotThrow(() => checkQuoteRequest(at(1000n), context));
    assert.doesNotThrow(() => checkQuoteRequest(at(200_000n), context));
    assert.equal(refusal(at(200_001n)), 'InvoiceAmountAboveMaximum');
  });

  test('checks in the documented order: fields, market, invoice, network, refund address, providers, expiry, amount', () => {
    const testnet = invoiceOf(50_000n, 7200, 'testnet').invoice;
    assert.equal(refusal({ market: 'NOPE', invoice: 'garbage' }), 'InvalidMarket');
    assert.equal(refusal({ market: 'BTC_LBTC', invoice: 'garbage' }), 'InvalidInvoice');
    assert.equal(refusal({ market: 'BTC_LBTC', invoice: testnet }), 'InvalidMarketForInvoice');
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice: invoiceOf(1n, 1).invoice }, { providers: [] }),
      'InvalidRefundAddress',
    );
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice: invoiceOf(1n, 1).invoice, refundAddress }, { providers: [] }),
      'NoQuoteProvidersAvailable',
    );
    assert.equal(
      refusal({ market: 'BTC_LBTC', invoice: invoiceOf(1n, 1).invoice, refundAddress }),
      'InvoiceExpiresTooSoon',
    );
  });
});

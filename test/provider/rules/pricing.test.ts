import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { priceQuote, type MarketPricing, type QuoteContext } from '../../../src/provider/rules/pricing.js';

const ETH_PER_BTC_30: MarketPricing = {
  onchainPerBitcoin: 30n * 10n ** 18n,
  feeBasisPoints: 50n,
  baseFee: 100_000_000_000_000n,
  minimumMillisatoshis: 10_000_000n,
  maximumMillisatoshis: 10_000_000_000n,
  routingFeeLimitBasisPoints: 100n,
  minimumInvoiceLifetimeMs: 600_000,
};

const context: QuoteContext = {
  invoice: {
    network: 'simnet',
    paymentHash: 'aa'.repeat(32),
    amountMillisatoshis: 100_000_000n,
    timestampMs: 0,
    expiresAtMs: 3_600_000,
    payeePublicKey: '02' + '11'.repeat(32),
  },
  nodeNetwork: 'simnet',
  nowMs: 0,
  atRiskMillisatoshis: 0n,
  inventoryLimitMillisatoshis: 1_000_000_000n,
  spendableMillisatoshis: 1_000_000_000n,
};

describe('quoting at a fixed rate', () => {
  test('100000 sat at 30 ETH/BTC is 0.03 ETH, plus 0.5 % and the base fee; the routing fee limit is 1 %', () => {
    assert.deepEqual(priceQuote(ETH_PER_BTC_30, context), {
      quote: true,
      onchainAmount: 30_000_000_000_000_000n + 150_000_000_000_000n + 100_000_000_000_000n,
      routingFeeLimitMillisatoshis: 1_000_000n,
    });
  });

  test('conversion and fee round up: the provider never quotes below its rate', () => {
    const satoshis: MarketPricing = {
      ...ETH_PER_BTC_30,
      onchainPerBitcoin: 100_000_000n,
      feeBasisPoints: 1n,
      baseFee: 0n,
    };
    const oddAmount = { ...context, invoice: { ...context.invoice, amountMillisatoshis: 10_000_001n } };
    assert.deepEqual(priceQuote(satoshis, oddAmount), {
      quote: true,
      onchainAmount: 10_001n + 2n,
      routingFeeLimitMillisatoshis: 100_001n,
    });
  });

  test('declines what it cannot safely serve', () => {
    const invoice = context.invoice;
    const declined = (overrides: Partial<QuoteContext>) => priceQuote(ETH_PER_BTC_30, { ...context, ...overrides });
    assert.deepEqual(declined({ invoice: { ...invoice, amountMillisatoshis: undefined } }), {
      quote: false,
      reason: 'no-amount',
    });
    assert.deepEqual(declined({ nodeNetwork: 'mainnet' }), { quote: false, reason: 'wrong-network' });
    assert.deepEqual(declined({ nowMs: invoice.expiresAtMs - 599_999 }), { quote: false, reason: 'expires-too-soon' });
    assert.deepEqual(declined({ invoice: { ...invoice, amountMillisatoshis: 9_999_999n } }), {
      quote: false,
      reason: 'below-minimum',
    });
    assert.deepEqual(declined({ invoice: { ...invoice, amountMillisatoshis: 10_000_000_001n } }), {
      quote: false,
      reason: 'above-maximum',
    });
    assert.deepEqual(declined({ atRiskMillisatoshis: 900_000_001n }), { quote: false, reason: 'inventory-full' });
    assert.equal(declined({ atRiskMillisatoshis: 900_000_000n }).quote, true, 'exactly at the inventory limit');
    assert.deepEqual(declined({ spendableMillisatoshis: 100_999_999n }), { quote: false, reason: 'balance-too-low' });
  });
});

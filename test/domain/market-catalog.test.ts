import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  catalogOf,
  KNOWN_CATALOG,
  tokenListProblem,
  tokenMarketName,
  type TokenAsset,
} from '../../src/domain/market-catalog.js';
import { KNOWN_MARKETS } from '../../src/domain/markets.js';

const USDC: TokenAsset = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 };
const SUSDC: TokenAsset = { ticker: 'SUSDC', network: 'simnet', address: `0x${'5f'.repeat(20)}`, decimals: 6 };

describe('market catalog', () => {
  test("a token's market pairs its ticker with the off-chain ticker of its network", () => {
    assert.equal(tokenMarketName(USDC), 'USDC_LBTC');
    assert.equal(tokenMarketName(SUSDC), 'SUSDC_LSBTC');
    assert.equal(tokenMarketName({ ...USDC, ticker: 'KUSDC', network: 'testnet' }), 'KUSDC_LTBTC');
  });

  test('finds token markets in any case, each carrying its contract and decimals', () => {
    const catalog = catalogOf({ tokens: [USDC, SUSDC] });
    const market = catalog.findMarket('susdc_lsbtc');
    assert.deepEqual(market, {
      name: 'SUSDC_LSBTC',
      offchainTicker: 'LSBTC',
      network: 'simnet',
      onchain: { ticker: 'SUSDC', chain: 'ethereum', network: 'simnet', decimals: 6, tokenAddress: SUSDC.address },
    });
    assert.equal(catalog.findOnchainAsset('usdc')?.tokenAddress, USDC.address);
    assert.equal(catalog.marketOf({ id: 'x', market: 'USDC_LBTC' }).onchain.decimals, 6);
    assert.deepEqual(
      catalog.markets.map((entry) => entry.name),
      [...KNOWN_MARKETS.map((entry) => entry.name), 'USDC_LBTC', 'SUSDC_LSBTC'],
    );
  });

  test('still finds the known markets, and nothing of a token it was not given', () => {
    const catalog = catalogOf({ tokens: [USDC] });
    assert.equal(catalog.findMarket('eth_lbtc')?.onchain.tokenAddress, undefined);
    assert.equal(catalog.findMarket('SUSDC_LSBTC'), undefined);
    assert.equal(KNOWN_CATALOG.findMarket('USDC_LBTC'), undefined);
    assert.throws(
      () => KNOWN_CATALOG.marketOf({ id: 'o-1', market: 'USDC_LBTC' }),
      /o-1 names unknown market USDC_LBTC/,
    );
  });

  test('is built once per configuration: the same token list gives the same catalog', () => {
    const tokens = [USDC];
    assert.equal(catalogOf({ tokens }), catalogOf({ tokens }));
    assert.equal(catalogOf({ tokens: [] }), KNOWN_CATALOG);
  });
});

describe('token checks', () => {
  test('accepts well-formed tokens', () => {
    assert.equal(tokenListProblem([USDC, SUSDC]), undefined);
    assert.equal(tokenListProblem([{ ...USDC, decimals: 0 }]), undefined);
  });

  test('refuses a known on-chain or off-chain ticker as a token ticker', () => {
    for (const ticker of ['ETH', 'SETH', 'BTC', 'LBTC', 'LSBTC']) {
      assert.deepEqual(tokenListProblem([{ ...USDC, ticker }]), {
        index: 0,
        field: 'ticker',
        problem: `${ticker} is a known ticker`,
      });
    }
  });

  test('refuses tickers that could not be told apart in a market name, or are not canonical', () => {
    for (const ticker of ['usdc', 'US_DC', 'U', '1INCH', 'USDC-E', 'A'.repeat(13), '']) {
      assert.equal(tokenListProblem([{ ...USDC, ticker }])?.field, 'ticker', ticker);
    }
  });

  test('refuses an address that is not a lowercase Ethereum address', () => {
    for (const address of [
      USDC.address.toUpperCase(),
      `0x${'ab'.repeat(19)}`,
      'a0'.repeat(20),
      `0x${'g0'.repeat(20)}`,
    ]) {
      assert.equal(tokenListProblem([{ ...USDC, address }])?.field, 'address', address);
    }
  });

  test('refuses a network or decimals outside what a market can have', () => {
    assert.equal(tokenListProblem([{ ...USDC, network: 'regtest' as TokenAsset['network'] }])?.field, 'network');
    for (const decimals of [-1, 1.5, 37, Number.NaN]) {
      assert.equal(tokenListProblem([{ ...USDC, decimals }])?.field, 'decimals', String(decimals));
    }
  });

  test('refuses a repeated ticker, and a second token on the same contract of one network', () => {
    assert.deepEqual(tokenListProblem([USDC, { ...SUSDC, ticker: 'USDC' }]), {
      index: 1,
      field: 'ticker',
      problem: 'repeats tokens[0]',
    });
    assert.deepEqual(tokenListProblem([USDC, { ...USDC, ticker: 'USDX' }]), {
      index: 1,
      field: 'address',
      problem: 'is already the contract of tokens[0] on mainnet',
    });
    assert.equal(tokenListProblem([USDC, { ...USDC, ticker: 'KUSDC', network: 'testnet' }]), undefined);
  });
});

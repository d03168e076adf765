import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { htlcPayToAddresses, parseHtlcRedeemScript } from '../../../src/domain/bitcoin.js';
import { findMarket, type Market } from '../../../src/domain/markets.js';
import { encodeFundCalldata, encodeFundTokenCalldata } from '../../../src/domain/ethereum.js';
import {
  verifyMakerQuote,
  type QuoteSolicitation,
  type QuotingProvider,
} from '../../../src/engine/lifecycle/maker-quote.js';
import { buildMakerQuote, type MakerTerms, type QuoteRequestEvent } from '../../../examples/maker-quote.js';
import { BITCOIN_VIEW, CHAINS, ETHEREUM_VIEW, SWAP_CONTRACT_ADDRESS } from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import { privateKeyFor, refundAddressFor, testEngineOptions } from '../../support/engine/helpers.js';
import { refusal as tokenOfRefusal } from '../../support/refusal.js';

const DEADLINE = Date.UTC(2024, 0, 1);
const options = testEngineOptions();
const { invoice, paymentHash } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n });
const refundAddress = refundAddressFor('user');

function market(name: string): Market {
  const found = findMarket(name);
  assert.ok(found);
  return found;
}

/** The quoting provider, paid at the address the operator registered for it. */
const PAYOUT = '0x00000000000000000000000000000000000000a1';
const MAKER: QuotingProvider = { id: 'maker-1', ethereumPayoutAddress: PAYOUT };

const terms: MakerTerms = {
  claimPrivateKey: privateKeyFor('maker'),
  fundWindowMs: 10 * 60_000,
  timelockBlocks: 144,
  bitcoinBlockHeight: BITCOIN_VIEW.blockHeight,
  swapContractAddress: SWAP_CONTRACT_ADDRESS,
  ethereumPayoutAddress: PAYOUT,
  price: (name, satoshis) => (name === 'BTC_LBTC' ? satoshis + 500n : satoshis * 500_000_000_000n),
};

function solicitationFor(marketName: string): QuoteSolicitation {
  return {
    orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
    market: market(marketName),
    paymentHash,
    ...(marketName === 'BTC_LBTC' ? { refundAddress } : {}),
    requestExpiryTimestampMs: DEADLINE,
    chains: CHAINS,
  };
}

function requestFor(solicitation: QuoteSolicitation): QuoteRequestEvent {
  return {
    orderId: solicitation.orderId,
    market: solicitation.market.name,
    invoice,
    ...(solicitation.refundAddress === undefined ? {} : { refundAddress: solicitation.refundAddress }),
    requestExpiryTimestampMs: solicitation.requestExpiryTimestampMs,
  };
}

const btc = solicitationFor('BTC_LBTC');
const eth = solicitationFor('ETH_LBTC');
const validBitcoinQuote = buildMakerQuote(requestFor(btc), terms);
const validEthereumQuote = buildMakerQuote(requestFor(eth), terms);

function refusal(
  payload: unknown,
  solicitation: QuoteSolicitation,
  receivedAt = DEADLINE - 10,
  provider: QuotingProvider = MAKER,
): string {
  return tokenOfRefusal(() => verifyMakerQuote(payload, solicitation, options, receivedAt, provider));
}

/** The valid quote with some fields replaced; `details` fields merge into the valid details. */
function bitcoinQuoteWith(overrides: Record<string, unknown>, details: Record<string, unknown> = {}): unknown {
  return { ...validBitcoinQuote, ...overrides, details: { ...validBitcoinQuote.details, ...details } };
}

function ethereumQuoteWith(overrides: Record<string, unknown>, transaction: Record<string, unknown> = {}): unknown {
  const { unsignedFundingTx } = validEthereumQuote.details as { unsignedFundingTx: Record<string, unknown> };
  return {
    ...validEthereumQuote,
    ...overrides,
    details: { unsignedFundingTx: { ...unsignedFundingTx, ...transaction } },
  };
}

describe('verifyMakerQuote, Bitcoin', () => {
  test('accepts an HTLC locked to the payment hash with a refund path to the user', () => {
    const verified = verifyMakerQuote(validBitcoinQuote, btc, options, DEADLINE, MAKER);
    assert.equal(verified.amount, 50_500n);
    assert.equal(validBitcoinQuote.amount, '0.00050500');
    assert.equal(verified.expiresAt, DEADLINE + 10 * 60_000);
    assert.equal(verified.htlc.refundableAtBlockHeight, BITCOIN_VIEW.blockHeight + 144);
    assert.equal(verified.htlc.redeemScript, (validBitcoinQuote.details as { redeemScript: string }).redeemScript);
    assert.equal(verified.payToAddress, (validBitcoinQuote.details as { payToAddress: string }).payToAddress);
  });

  test('accepts every address of the script, and an upper-case script stored in lower case', () => {
    const script = (validBitcoinQuote.details as { redeemScript: string }).redeemScript;
    for (const address of Object.values(htlcPayToAddresses(script, 'mainnet'))) {
      assert.equal(
        verifyMakerQuote(bitcoinQuoteWith({}, { payToAddress: address }), btc, options, DEADLINE, MAKER).payToAddress,
        address,
      );
    }
    const upper = verifyMakerQuote(
      bitcoinQuoteWith({}, { redeemScript: script.toUpperCase() }),
      btc,
      options,
      DEADLINE,
      MAKER,
    );
    assert.equal(upper.htlc.redeemScript, script);
  });

  test('InvalidOrMissingQuoteFields for malformed fields and amounts not in fixed point', () => {
    const cases: unknown[] = [
      null,
      [],
      bitcoinQuoteWith({ orderId: 'b61131f7-0b66-460e-b3d8-37d59f94b8aa' }),
      bitcoinQuoteWith({ quoteExpiryTimestampMs: '1' }),
      bitcoinQuoteWith({ quoteExpiryTimestampMs: 1.5 }),
      { ...validBitcoinQuote, details: 'x' },
      bitcoinQuoteWith({ amount: undefined }),
      bitcoinQuoteWith({ amount: 50500 }),
      bitcoinQuoteWith({ amount: '0.000505' }),
      bitcoinQuoteWith({ amount: '0.00000000' }),
      bitcoinQuoteWith({ amount: '-0.00050500' }),
      bitcoinQuoteWith({ amount: '0.000505000' }),
      bitcoinQuoteWith({}, { redeemScript: 5 }),
      bitcoinQuoteWith({}, { payToAddress: undefined }),
      bitcoinQuoteWith({}, { refundableAtBlockHeight: '612244' }),
    ];
    for (const payload of cases)
      assert.equal(refusal(payload, btc), 'InvalidOrMissingQuoteFields', JSON.stringify(payload));
  });

  test('QuoteSubmittedTooLate after the request deadline', () => {
    assert.doesNotThrow(() => verifyMakerQuote(validBitcoinQuote, btc, options, DEADLINE, MAKER));
    assert.equal(refusal(validBitcoinQuote, btc, DEADLINE + 1), 'QuoteSubmittedTooLate');
  });

  test('QuoteExpiryIsOutOfBounds outside the fund window bounds', () => {
    const at = (offset: number) => bitcoinQuoteWith({ quoteExpiryTimestampMs: DEADLINE + offset });
    assert.equal(refusal(at(options.minFundWindowMs - 1), btc), 'QuoteExpiryIsOutOfBounds');
    assert.doesNotThrow(() => verifyMakerQuote(at(options.minFundWindowMs), btc, options, DEADLINE, MAKER));
    assert.doesNotThrow(() => verifyMakerQuote(at(options.maxFundWindowMs), btc, options, DEADLINE, MAKER));
    assert.equal(refusal(at(options.maxFundWindowMs + 1), btc), 'QuoteExpiryIsOutOfBounds');
  });

  test('InvalidRedeemScript: not an HTLC, another payment hash, another refund key, a height the script does not hold', () => {
    const otherHash = buildMakerQuote(
      { ...requestFor(btc), invoice: makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n }).invoice },
      terms,
    );
    const otherRefund = buildMakerQuote({ ...requestFor(btc), refundAddress: refundAddressFor('someone else') }, terms);
    const cases = [
      bitcoinQuoteWith({}, { redeemScript: '51' }),
      bitcoinQuoteWith({}, { redeemScript: 'zz' }),
      otherHash,
      otherRefund,
      bitcoinQuoteWith({}, { refundableAtBlockHeight: BITCOIN_VIEW.blockHeight + 145 }),
    ];
    for (const payload of cases) assert.equal(refusal(payload, btc), 'InvalidRedeemScript');
    assert.ok(parseHtlcRedeemScript((otherRefund.details as { redeemScript: string }).redeemScript));
  });

  test("InvalidPayToAddress for an address that is not the script's", () => {
    assert.equal(refusal(bitcoinQuoteWith({}, { payToAddress: refundAddress }), btc), 'InvalidPayToAddress');
    const script = (validBitcoinQuote.details as { redeemScript: string }).redeemScript;
    const testnetAddress = htlcPayToAddresses(script, 'testnet').p2wsh;
    assert.equal(refusal(bitcoinQuoteWith({}, { payToAddress: testnetAddress }), btc), 'InvalidPayToAddress');
  });

  test('TimelockIsOutOfBounds outside the block bounds, or without a Bitcoin view to judge by', () => {
    const withTimelock = (blocks: number) => buildMakerQuote(requestFor(btc), { ...terms, timelockBlocks: blocks });
    assert.equal(refusal(withTimelock(options.minTimelockBlocks - 1), btc), 'TimelockIsOutOfBounds');
    assert.doesNotThrow(() => verifyMakerQuote(withTimelock(options.minTimelockBlocks), btc, options, DEADLINE, MAKER));
    assert.doesNotThrow(() => verifyMakerQuote(withTimelock(options.maxTimelockBlocks), btc, options, DEADLINE, MAKER));
    assert.equal(refusal(withTimelock(options.maxTimelockBlocks + 1), btc), 'TimelockIsOutOfBounds');
    assert.equal(refusal(validBitcoinQuote, { ...btc, chains: { ethereum: ETHEREUM_VIEW } }), 'TimelockIsOutOfBounds');
  });
});

describe('verifyMakerQuote, Ethereum', () => {
  test('accepts the exact fund call to the whitelisted contract; the refund height is the contract delay', () => {
    const verified = verifyMakerQuote(validEthereumQuote, eth, options, DEADLINE, MAKER);
    assert.equal(verified.amount, 25_000_000_000_000_000n);
    assert.equal(validEthereumQuote.amount, '0.025000000000000000');
    assert.equal(verified.payToAddress, SWAP_CONTRACT_ADDRESS);
    assert.deepEqual(verified.htlc, {
      refundableAtBlockHeight: ETHEREUM_VIEW.blockHeight + options.ethereumRefundDelayBlocks,
    });
  });

  test('reads the amount from the value when the quote omits it; accepts a checksummed contract address', () => {
    const { amount: _omitted, ...withoutAmount } = validEthereumQuote;
    assert.equal(verifyMakerQuote(withoutAmount, eth, options, DEADLINE, MAKER).amount, 25_000_000_000_000_000n);
    const checksummed = ethereumQuoteWith({}, { to: '0xF0398FAd8c2aA38c476B010c269158d442730E98' });
    assert.equal(verifyMakerQuote(checksummed, eth, options, DEADLINE, MAKER).payToAddress, SWAP_CONTRACT_ADDRESS);
  });

  test('InvalidOrMissingQuoteFields for a malformed funding transaction', () => {
    for (const payload of [
      { ...validEthereumQuote, details: {} },
      ethereumQuoteWith({}, { value: 25 }),
      ethereumQuoteWith({}, { to: undefined }),
      ethereumQuoteWith({ amount: '0.025' }),
    ]) {
      assert.equal(refusal(payload, eth), 'InvalidOrMissingQuoteFields', JSON.stringify(payload));
    }
  });

  test('ContractIsNotWhitelisted for another contract, or without an Ethereum view', () => {
    assert.equal(
      refusal(ethereumQuoteWith({}, { to: '0x1111111111111111111111111111111111111111' }), eth),
      'ContractIsNotWhitelisted',
    );
    assert.equal(
      refusal(validEthereumQuote, { ...eth, chains: { bitcoin: BITCOIN_VIEW } }),
      'ContractIsNotWhitelisted',
    );
  });

  test('InvalidContractData unless the calldata is fund(orderUUID, paymentHash) for this order', () => {
    const otherOrder = buildMakerQuote({ ...requestFor(eth), orderId: 'b61131f7-0b66-460e-b3d8-37d59f94b8aa' }, terms);
    const { data } = (otherOrder.details as { unsignedFundingTx: { data: string } }).unsignedFundingTx;
    assert.equal(refusal(ethereumQuoteWith({}, { data }), eth), 'InvalidContractData');
    const { data: valid } = (validEthereumQuote.details as { unsignedFundingTx: { data: string } }).unsignedFundingTx;
    assert.equal(refusal(ethereumQuoteWith({}, { data: `${valid}00` }), eth), 'InvalidContractData');
    assert.equal(refusal(ethereumQuoteWith({}, { data: '0x' }), eth), 'InvalidContractData');
  });

  test('InvalidFundTxValue when the value is malformed, zero, or differs from the amount', () => {
    for (const value of ['', '0', '-1', '1e18', '25000000000000000.0', '025000000000000000']) {
      assert.equal(refusal(ethereumQuoteWith({ amount: undefined }, { value }), eth), 'InvalidFundTxValue', value);
    }
    assert.equal(refusal(ethereumQuoteWith({}, { value: '25000000000000001' }), eth), 'InvalidFundTxValue');
  });
});

describe('verifyMakerQuote, who is paid', () => {
  const dataOf = (quote: unknown) =>
    (quote as { details: { unsignedFundingTx: { data: string } } }).details.unsignedFundingTx.data;

  test('the order is won by the quoting provider; an Ethereum claim pays its payout address', () => {
    const ethereum = verifyMakerQuote(validEthereumQuote, eth, options, DEADLINE, MAKER);
    assert.equal(ethereum.providerId, 'maker-1');
    assert.equal(ethereum.claimAddress, PAYOUT);
    const bitcoin = verifyMakerQuote(validBitcoinQuote, btc, options, DEADLINE, MAKER);
    assert.equal(bitcoin.providerId, 'maker-1');
    assert.equal(Object.hasOwn(bitcoin, 'claimAddress'), false);
  });

  test('ClaimerIsNotPayoutAddress for a funding that pays anyone but the quoting provider', () => {
    const elsewhere = buildMakerQuote(requestFor(eth), {
      ...terms,
      ethereumPayoutAddress: '0x00000000000000000000000000000000000000e7',
    });
    assert.equal(refusal(elsewhere, eth), 'ClaimerIsNotPayoutAddress');
    // Another provider's valid quote, sent with this provider's credentials, is refused the same way.
    assert.equal(
      refusal(validEthereumQuote, eth, DEADLINE - 10, {
        id: 'maker-2',
        ethereumPayoutAddress: '0x00000000000000000000000000000000000000b2',
      }),
      'ClaimerIsNotPayoutAddress',
    );
    const checksummed = ethereumQuoteWith(
      {},
      { data: encodeFundCalldata(eth.orderId, paymentHash, '0x00000000000000000000000000000000000000A1') },
    );
    assert.equal(verifyMakerQuote(checksummed, eth, options, DEADLINE, MAKER).claimAddress, PAYOUT);
  });

  test('ProviderHasNoPayoutAddress: a provider without one cannot win an Ethereum market, and can win a Bitcoin one', () => {
    assert.equal(refusal(validEthereumQuote, eth, DEADLINE - 10, { id: 'maker-1' }), 'ProviderHasNoPayoutAddress');
    assert.equal(verifyMakerQuote(validBitcoinQuote, btc, options, DEADLINE, { id: 'maker-1' }).providerId, 'maker-1');
  });

  test('InvalidContractData for another payment hash, another order id, or fundToken on an ether market', () => {
    const otherHash = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n }).paymentHash;
    assert.equal(
      refusal(ethereumQuoteWith({}, { data: encodeFundCalldata(eth.orderId, otherHash, PAYOUT) }), eth),
      'InvalidContractData',
    );
    const otherOrder = encodeFundCalldata('b61131f7-0b66-460e-b3d8-37d59f94b8aa', paymentHash, PAYOUT);
    assert.equal(refusal(ethereumQuoteWith({}, { data: otherOrder }), eth), 'InvalidContractData');
    const token = encodeFundTokenCalldata(eth.orderId, paymentHash, PAYOUT, TOKEN, 25_000_000_000_000_000n);
    assert.equal(refusal(ethereumQuoteWith({}, { data: token }), eth), 'InvalidContractData');
    assert.ok(dataOf(validEthereumQuote).startsWith('0x478820ce'));
  });
});

const TOKEN = '0x00000000000000000000000000000000000000d5';

describe('verifyMakerQuote, ERC-20 token markets', () => {
  const ethMarket = market('ETH_LBTC');
  const tokenMarket: Market = {
    ...ethMarket,
    name: 'TOK_LBTC',
    onchain: { ...ethMarket.onchain, ticker: 'TOK', decimals: 6, tokenAddress: TOKEN },
  };
  const tok: QuoteSolicitation = { ...eth, market: tokenMarket };
  const AMOUNT = 1_250_000n;

  function tokenQuote(data: string, value = '0', amount: string | undefined = '1.250000'): unknown {
    const funding = { to: SWAP_CONTRACT_ADDRESS, data, value };
    return { ...validEthereumQuote, amount, details: { unsignedFundingTx: funding } };
  }
  const fundToken = (
    fields: { claimer?: string; token?: string; amount?: bigint; orderId?: string; hash?: string } = {},
  ) =>
    encodeFundTokenCalldata(
      fields.orderId ?? tok.orderId,
      fields.hash ?? paymentHash,
      fields.claimer ?? PAYOUT,
      fields.token ?? TOKEN,
      fields.amount ?? AMOUNT,
    );

  test('accepts fundToken of the market token, for the quoted amount, with no ether', () => {
    const verified = verifyMakerQuote(tokenQuote(fundToken()), tok, options, DEADLINE, MAKER);
    assert.equal(verified.amount, AMOUNT);
    assert.equal(verified.claimAddress, PAYOUT);
    assert.equal(
      verifyMakerQuote(tokenQuote(fundToken(), '0', undefined), tok, options, DEADLINE, MAKER).amount,
      AMOUNT,
    );
  });

  test('InvalidContractData for fund, another token, another amount, another order or payment hash', () => {
    const otherHash = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n }).paymentHash;
    for (const data of [
      encodeFundCalldata(tok.orderId, paymentHash, PAYOUT),
      fundToken({ token: '0x00000000000000000000000000000000000000d6' }),
      fundToken({ amount: AMOUNT + 1n }),
      fundToken({ amount: 0n }),
      fundToken({ orderId: 'b61131f7-0b66-460e-b3d8-37d59f94b8aa' }),
      fundToken({ hash: otherHash }),
    ]) {
      assert.equal(refusal(tokenQuote(data), tok), 'InvalidContractData', data);
    }
  });

  test('InvalidFundTxValue when ether rides along; ClaimerIsNotPayoutAddress for another claimer', () => {
    assert.equal(refusal(tokenQuote(fundToken(), '1'), tok), 'InvalidFundTxValue');
    assert.equal(
      refusal(tokenQuote(fundToken({ claimer: '0x00000000000000000000000000000000000000e7' })), tok),
      'ClaimerIsNotPayoutAddress',
    );
  });
});

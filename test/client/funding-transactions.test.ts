/**
 * `fundingTransactions` against a service that lies about where the money goes or when: quotes made as a provider
 * makes them (`ethereumQuoteDetails`) are accepted, for ether and for a token, whatever the letter case of the
 * addresses; each hostile variant of them (one fault at a time) is refused synchronously with its fault.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getAddress } from 'viem';
import { fundingTransactions, UnsafeFundingDetails, type FundingDetailsView } from '../../src/client/index.js';
import { encodeApproveCalldata, encodeFundTokenCalldata } from '../../src/domain/ethereum.js';
import { ethereumQuoteDetails } from '../../src/provider/ethereum/ethereum-quote-details.js';

const SWAP_CONTRACT = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const ATTACKER = '0xa7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7';
const TOKEN = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const ORDER_ID = '4f3c1a2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const PAYMENT_HASH = 'cd'.repeat(32);
const EXPIRY = Date.UTC(2026, 11, 2, 12, 0, 0);
const BEFORE_EXPIRY = EXPIRY - 1;
const WEI = 1_000_000_000_000_000n;
const TOKEN_UNITS = 25_000_000n;

type Unsigned = { to: string; data: string; value: string };

function quoteOf(details: Record<string, unknown>, amount: string): FundingDetailsView {
  return { orderId: ORDER_ID, expiryTimestampMs: EXPIRY, amount, details } as FundingDetailsView;
}

function etherQuote(swapContract = SWAP_CONTRACT): FundingDetailsView {
  const order = { orderId: ORDER_ID, paymentHash: PAYMENT_HASH, amount: WEI } as never;
  return quoteOf(ethereumQuoteDetails({ swapContractAddress: swapContract, payoutAddress: PAYOUT }, order), '0.001');
}

function tokenQuote(): FundingDetailsView {
  const order = { orderId: ORDER_ID, paymentHash: PAYMENT_HASH, amount: TOKEN_UNITS } as never;
  const terms = { swapContractAddress: SWAP_CONTRACT, payoutAddress: PAYOUT, tokenAddress: TOKEN };
  return quoteOf(ethereumQuoteDetails(terms, order), '25');
}

function withTransactions(
  quote: FundingDetailsView,
  change: (transactions: { funding: Unsigned; approval?: Unsigned }) => Record<string, Unsigned>,
): FundingDetailsView {
  const details = quote.details as { unsignedFundingTx: Unsigned; unsignedApprovalTx?: Unsigned };
  const changed = change({ funding: details.unsignedFundingTx, approval: details.unsignedApprovalTx });
  return { ...quote, details: { ...details, ...changed } } as FundingDetailsView;
}

const EXPECTED = { paymentHash: PAYMENT_HASH, swapContract: SWAP_CONTRACT, now: BEFORE_EXPIRY };

/** The fault `fundingTransactions` throws, synchronously, for `quote`; undefined when it answers. */
function faultOf(quote: FundingDetailsView, expectations: Parameters<typeof fundingTransactions>[1] = EXPECTED) {
  try {
    fundingTransactions(quote, expectations);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof UnsafeFundingDetails, `a refusal, not ${String(error)}`);
    return error.fault;
  }
}

describe('fundingTransactions', () => {
  test('answers [fund] for an honest ether quote, whatever the letter case of the swap contract', () => {
    for (const swapContract of [
      SWAP_CONTRACT,
      SWAP_CONTRACT.toUpperCase().replace('0X', '0x'),
      getAddress(SWAP_CONTRACT),
    ]) {
      for (const quoted of [SWAP_CONTRACT, getAddress(SWAP_CONTRACT)]) {
        const transactions = fundingTransactions(etherQuote(quoted), { ...EXPECTED, swapContract });
        assert.equal(transactions.length, 1);
        assert.equal(transactions[0]!.to.toLowerCase(), SWAP_CONTRACT);
        assert.equal(transactions[0]!.value, WEI);
      }
    }
  });

  test('answers [approve, fundToken] for an honest token quote', () => {
    const [approval, funding, ...more] = fundingTransactions(tokenQuote(), {
      ...EXPECTED,
      swapContract: getAddress(SWAP_CONTRACT),
    });
    assert.deepEqual(more, []);
    assert.equal(approval!.to.toLowerCase(), TOKEN);
    assert.equal(approval!.data, encodeApproveCalldata(SWAP_CONTRACT, TOKEN_UNITS));
    assert.equal(funding!.to.toLowerCase(), SWAP_CONTRACT);
    assert.equal(funding!.value, 0n);
  });

  test('refuses an ether funding to another contract than the swap contract', () => {
    assert.equal(faultOf(etherQuote(ATTACKER)), 'WrongContract');
    assert.equal(faultOf(etherQuote(), { ...EXPECTED, swapContract: ATTACKER }), 'WrongContract');
  });

  test('refuses a token funding to another contract, and an approval letting another spender take the token', () => {
    const fundingElsewhere = withTransactions(tokenQuote(), ({ funding }) => ({
      unsignedFundingTx: { ...funding, to: ATTACKER },
    }));
    assert.equal(faultOf(fundingElsewhere), 'WrongContract');
    const attackerSpends = withTransactions(tokenQuote(), ({ approval }) => ({
      unsignedApprovalTx: { ...approval!, data: encodeApproveCalldata(ATTACKER, TOKEN_UNITS) },
    }));
    assert.equal(faultOf(attackerSpends), 'WrongContract');
    // Both moved to the attacker's contract together: consistent with each other, not with the wallet's contract.
    const allElsewhere = withTransactions(tokenQuote(), ({ funding, approval }) => ({
      unsignedFundingTx: { ...funding, to: ATTACKER },
      unsignedApprovalTx: { ...approval!, data: encodeApproveCalldata(ATTACKER, TOKEN_UNITS) },
    }));
    assert.equal(faultOf(allElsewhere), 'WrongContract');
  });

  test("refuses an approval of another amount or of another token than the funding's", () => {
    const moreApproved = withTransactions(tokenQuote(), ({ approval }) => ({
      unsignedApprovalTx: { ...approval!, data: encodeApproveCalldata(SWAP_CONTRACT, TOKEN_UNITS + 1n) },
    }));
    assert.equal(faultOf(moreApproved), 'WrongAmount');
    const otherToken = withTransactions(tokenQuote(), ({ funding }) => ({
      unsignedFundingTx: {
        ...funding,
        data: encodeFundTokenCalldata(ORDER_ID, PAYMENT_HASH, PAYOUT, ATTACKER, TOKEN_UNITS),
      },
    }));
    assert.equal(faultOf(otherToken), 'WrongToken');
  });

  test("refuses a token funding locking another amount or token than quoted, given the token's decimals", () => {
    const token = { address: getAddress(TOKEN), decimals: 6 };
    assert.equal(faultOf(tokenQuote(), { ...EXPECTED, token }), undefined);
    // Approval and funding agree with each other on a thousand times the amount the quote shows.
    const thousandfold = withTransactions(tokenQuote(), ({ funding, approval }) => ({
      unsignedFundingTx: {
        ...funding,
        data: encodeFundTokenCalldata(ORDER_ID, PAYMENT_HASH, PAYOUT, TOKEN, TOKEN_UNITS * 1000n),
      },
      unsignedApprovalTx: { ...approval!, data: encodeApproveCalldata(SWAP_CONTRACT, TOKEN_UNITS * 1000n) },
    }));
    assert.equal(faultOf(thousandfold, { ...EXPECTED, token }), 'WrongAmount');
    for (const amount of ['25.0000001', '2.5e1', '+25', '025', ' 25']) {
      assert.equal(faultOf({ ...tokenQuote(), amount }, { ...EXPECTED, token }), 'WrongAmount', amount);
    }
    assert.equal(faultOf(tokenQuote(), { ...EXPECTED, token: { ...token, address: ATTACKER } }), 'WrongToken');
    assert.equal(faultOf(etherQuote(), { ...EXPECTED, token }), 'WrongToken');
    for (const decimals of [-1, 1.5, Number.NaN, '6']) {
      const malformed = { ...EXPECTED, token: { ...token, decimals } } as never;
      assert.equal(faultOf(tokenQuote(), malformed), 'MalformedExpectations', String(decimals));
    }
  });

  test('refuses a token or ether funding whose approval is missing, stray, of another token, or carries ether', () => {
    const approvalOf = (quote: FundingDetailsView) =>
      (quote.details as { unsignedApprovalTx: Unsigned }).unsignedApprovalTx;
    const etherWithApproval = withTransactions(etherQuote(), () => ({ unsignedApprovalTx: approvalOf(tokenQuote()) }));
    assert.equal(faultOf(etherWithApproval), 'WrongToken');
    const { unsignedApprovalTx: _approval, ...withoutApproval } = tokenQuote().details as Record<string, unknown>;
    assert.equal(faultOf({ ...tokenQuote(), details: withoutApproval } as FundingDetailsView), 'WrongToken');
    const approvalOfAnotherToken = withTransactions(tokenQuote(), ({ approval }) => ({
      unsignedApprovalTx: { ...approval!, to: ATTACKER },
    }));
    assert.equal(faultOf(approvalOfAnotherToken), 'WrongToken');
    const approvalWithEther = withTransactions(tokenQuote(), ({ approval }) => ({
      unsignedApprovalTx: { ...approval!, value: '1' },
    }));
    assert.equal(faultOf(approvalWithEther), 'WrongAmount');
    const tokenFundingWithEther = withTransactions(tokenQuote(), ({ funding }) => ({
      unsignedFundingTx: { ...funding, value: '1' },
    }));
    assert.equal(faultOf(tokenFundingWithEther), 'WrongAmount');
    const notAnApproval = withTransactions(tokenQuote(), ({ approval, funding }) => ({
      unsignedApprovalTx: { ...approval!, data: funding.data },
    }));
    assert.equal(faultOf(notAnApproval), 'WrongFunction');
  });

  test('refuses a Bitcoin quote: it is funded by paying its address, not by a transaction to sign', () => {
    const bitcoin = { ...etherQuote(), details: { payToAddress: 'bcrt1qexample', redeemScript: '00' } };
    assert.equal(faultOf(bitcoin as FundingDetailsView), 'WrongChain');
  });

  test('reads the order id in any spelling of the same UUID, and refuses one that is no text', () => {
    const compact = ORDER_ID.replaceAll('-', '').toUpperCase();
    assert.equal(faultOf({ ...etherQuote(), orderId: compact }), undefined);
    assert.equal(faultOf({ ...etherQuote(), orderId: 42 } as unknown as FundingDetailsView), 'WrongOrder');
  });

  test("refuses a quote whose window has closed by the wallet's clock, by default its own", () => {
    assert.equal(faultOf(etherQuote(), EXPECTED), undefined);
    for (const now of [EXPIRY, EXPIRY + 1, EXPIRY + 86_400_000, Number.NaN]) {
      assert.equal(faultOf(etherQuote(), { ...EXPECTED, now }), 'QuoteExpired', String(now));
      assert.equal(faultOf(tokenQuote(), { ...EXPECTED, now }), 'QuoteExpired', String(now));
    }
    const { now: _now, ...withoutClock } = EXPECTED;
    assert.equal(faultOf({ ...etherQuote(), expiryTimestampMs: Date.now() - 1 }, withoutClock), 'QuoteExpired');
    assert.equal(faultOf({ ...etherQuote(), expiryTimestampMs: Date.now() + 600_000 }, withoutClock), undefined);
    const noExpiry = { ...etherQuote(), expiryTimestampMs: '2099-01-01' } as unknown as FundingDetailsView;
    assert.equal(faultOf(noExpiry), 'QuoteExpired');
  });

  test('refuses a wallet that names no swap contract to check against', () => {
    for (const swapContract of ['', 'not an address', `${SWAP_CONTRACT}00`, undefined]) {
      assert.equal(faultOf(etherQuote(), { ...EXPECTED, swapContract: swapContract as string }), 'WrongContract');
    }
  });

  test('throws synchronously: never a Promise, for a refusal or an answer', () => {
    assert.ok(Array.isArray(fundingTransactions(etherQuote(), EXPECTED)));
    assert.throws(() => fundingTransactions(etherQuote(ATTACKER), EXPECTED), UnsafeFundingDetails);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LnswapError } from '../../src/domain/errors.js';
import { QuoteAuction } from '../../src/engine/auction.js';
import type { VerifiedQuote } from '../../src/engine/maker-quote.js';

const DEADLINE = 1_000;

/** Quotes are `{ amount }` here; anything else is refused the way the real verifier refuses. */
function verifier(payload: unknown, receivedAt: number): VerifiedQuote {
  if (receivedAt > DEADLINE) throw new LnswapError('QuoteSubmittedTooLate');
  const amount = (payload as { amount?: unknown }).amount;
  if (typeof amount !== 'bigint') throw new LnswapError('InvalidOrMissingQuoteFields');
  return { amount, expiresAt: receivedAt, payToAddress: `pay ${amount}`, htlc: { refundableAtBlockHeight: 1 } };
}

function tokenOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    assert.ok(error instanceof LnswapError);
    return error.token;
  }
}

describe('QuoteAuction', () => {
  test('the lowest amount wins whatever the arrival order', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 300n }, 10);
    auction.submit({ amount: 100n }, 20);
    auction.submit({ amount: 200n }, 30);
    assert.equal(auction.close()?.amount, 100n);
  });

  test('among equal amounts the earliest wins', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 100n }, 10);
    auction.submit({ amount: 100n }, 20);
    assert.equal(auction.close()?.expiresAt, 10);
  });

  test('a refused quote is reported and never wins, however cheap', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 500n }, 10);
    assert.equal(tokenOf(() => auction.submit({ amount: 1 }, 20)), 'InvalidOrMissingQuoteFields');
    assert.equal(tokenOf(() => auction.submit({ amount: 1n }, DEADLINE + 1)), 'QuoteSubmittedTooLate');
    assert.equal(auction.close()?.amount, 500n);
  });

  test('no valid quote leaves nothing; after closing every quote is too late', () => {
    const auction = new QuoteAuction(verifier);
    assert.equal(auction.close(), undefined);
    assert.equal(tokenOf(() => auction.submit({ amount: 1n }, 10)), 'QuoteSubmittedTooLate');
    assert.equal(auction.close(), undefined);
  });
});

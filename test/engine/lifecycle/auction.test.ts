import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LnswapError } from '../../../src/domain/errors.js';
import { QuoteAuction } from '../../../src/engine/lifecycle/auction.js';
import type { QuotingProvider, VerifiedQuote } from '../../../src/engine/lifecycle/maker-quote.js';

const DEADLINE = 1_000;
const MAKER: QuotingProvider = { id: 'maker-1' };

/** Quotes are `{ amount }` here; anything else is refused the way the real verifier refuses. */
function verifier(payload: unknown, receivedAt: number, provider: QuotingProvider): VerifiedQuote {
  if (receivedAt > DEADLINE) throw new LnswapError('QuoteSubmittedTooLate');
  const amount = (payload as { amount?: unknown }).amount;
  if (typeof amount !== 'bigint') throw new LnswapError('InvalidOrMissingQuoteFields');
  const htlc = { refundableAtBlockHeight: 1 };
  return { amount, expiresAt: receivedAt, payToAddress: `pay ${amount}`, htlc, providerId: provider.id };
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
    auction.submit({ amount: 300n }, 10, MAKER);
    auction.submit({ amount: 100n }, 20, MAKER);
    auction.submit({ amount: 200n }, 30, MAKER);
    assert.equal(auction.close()?.amount, 100n);
  });

  test('among equal amounts the earliest wins', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 100n }, 10, MAKER);
    auction.submit({ amount: 100n }, 20, MAKER);
    assert.equal(auction.close()?.expiresAt, 10);
  });

  test('the winner is the provider that sent the lowest quote', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 300n }, 10, { id: 'dear' });
    auction.submit({ amount: 100n }, 20, { id: 'cheap' });
    auction.submit({ amount: 200n }, 30, { id: 'middle' });
    assert.equal(auction.close()?.providerId, 'cheap');
  });

  test('a refused quote is reported and never wins, however cheap', () => {
    const auction = new QuoteAuction(verifier);
    auction.submit({ amount: 500n }, 10, MAKER);
    assert.equal(
      tokenOf(() => auction.submit({ amount: 1 }, 20, MAKER)),
      'InvalidOrMissingQuoteFields',
    );
    assert.equal(
      tokenOf(() => auction.submit({ amount: 1n }, DEADLINE + 1, MAKER)),
      'QuoteSubmittedTooLate',
    );
    assert.equal(auction.close()?.amount, 500n);
  });

  test('no valid quote leaves nothing; after closing every quote is too late', () => {
    const auction = new QuoteAuction(verifier);
    assert.equal(auction.close(), undefined);
    assert.equal(
      tokenOf(() => auction.submit({ amount: 1n }, 10, MAKER)),
      'QuoteSubmittedTooLate',
    );
    assert.equal(auction.close(), undefined);
  });
});

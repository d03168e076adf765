import { LnswapError } from '../../domain/errors.js';
import type { QuotingProvider, VerifiedQuote } from './maker-quote.js';

export type QuoteVerifier = (payload: unknown, receivedAt: number, provider: QuotingProvider) => VerifiedQuote;

/**
 * Collects maker quotes for one order until it is closed at the deadline. Every quote is verified on
 * arrival, so a provider learns at once why its quote cannot win; the lowest verified amount wins,
 * and among equal amounts the earliest.
 */
export class QuoteAuction {
  private best: VerifiedQuote | undefined;
  private closed = false;

  constructor(private readonly verify: QuoteVerifier) {}

  /** Throws LnswapError when the quote is refused. */
  submit(payload: unknown, receivedAt: number, provider: QuotingProvider): void {
    if (this.closed) throw new LnswapError('QuoteSubmittedTooLate');
    const quote = this.verify(payload, receivedAt, provider);
    if (this.best === undefined || quote.amount < this.best.amount) this.best = quote;
  }

  /** Ends the auction; later quotes are too late. Undefined when no valid quote came in. */
  close(): VerifiedQuote | undefined {
    this.closed = true;
    return this.best;
  }
}

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import { isLnswapError, LnswapError, type ErrorToken } from '../domain/errors.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { isPlainObject } from '../engine/lifecycle/payload-shapes.js';
import type { QuotingProvider } from '../engine/lifecycle/maker-quote.js';
import type { QuoteDesk } from '../engine/lifecycle/quote-desk.js';

const FORWARDED_QUOTE = 'lnswap:makerQuote';
const FORWARDED_VERDICT = 'lnswap:makerQuoteVerdict';

interface ForwardedQuote {
  readonly requestId: string;
  readonly orderId: string;
  readonly payload: unknown;
  readonly receivedAt: number;
  readonly provider: QuotingProvider;
}

interface ForwardedVerdict {
  readonly requestId: string;
  readonly token?: ErrorToken;
}

/**
 * Brings a maker quote to the auction it answers. A provider may be connected to any instance, but
 * only the instance that asked runs the auction; other instances forward the quote through the
 * cluster adapter's server-side events, and that instance sends back its verdict the same way.
 */
export class MakerQuoteRouter {
  private readonly waiting = new Map<string, (token: ErrorToken | undefined) => void>();

  constructor(
    private readonly desk: QuoteDesk,
    private readonly providers: Namespace,
    private readonly clustered: boolean,
    private readonly forwardTimeoutMs: number,
    private readonly logger: Logger,
  ) {
    if (clustered) {
      providers.on(FORWARDED_QUOTE, (quote: ForwardedQuote) => this.judgeForwarded(quote));
      providers.on(FORWARDED_VERDICT, (verdict: ForwardedVerdict) => {
        this.waiting.get(verdict.requestId)?.(verdict.token);
      });
    }
  }

  /** Resolves when the quote is accepted into its auction; throws LnswapError when refused. */
  async submit(payload: unknown, receivedAt: number, provider: QuotingProvider): Promise<void> {
    const rawOrderId = isPlainObject(payload) ? payload.orderId : undefined;
    const orderId = typeof rawOrderId === 'string' ? normalizeOrderId(rawOrderId) : undefined;
    if (orderId === undefined) throw new LnswapError('InvalidOrMissingQuoteFields');
    if (this.desk.runsAuction(orderId) || !this.clustered) {
      this.desk.submitMakerQuote(orderId, payload, receivedAt, provider);
      return;
    }
    const token = await this.forward({ requestId: randomUUID(), orderId, payload, receivedAt, provider });
    if (token !== undefined) throw new LnswapError(token);
  }

  /** Fails the quotes still waiting for a verdict. */
  close(): void {
    for (const settle of this.waiting.values()) settle('QuoteSubmittedTooLate');
  }

  private forward(quote: ForwardedQuote): Promise<ErrorToken | undefined> {
    return new Promise((resolve) => {
      // No instance answering means no auction for this order is running anywhere any more.
      const timer = setTimeout(() => settle('QuoteSubmittedTooLate'), this.forwardTimeoutMs);
      const settle = (token: ErrorToken | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(quote.requestId);
        resolve(token);
      };
      this.waiting.set(quote.requestId, settle);
      this.providers.serverSideEmit(FORWARDED_QUOTE, quote);
    });
  }

  private judgeForwarded(quote: ForwardedQuote): void {
    if (!this.desk.runsAuction(quote.orderId)) return;
    let verdict: ForwardedVerdict = { requestId: quote.requestId };
    try {
      this.desk.submitMakerQuote(quote.orderId, quote.payload, quote.receivedAt, quote.provider);
    } catch (error) {
      if (!isLnswapError(error)) {
        this.logger.error({ err: error, orderId: quote.orderId }, 'judging a forwarded maker quote failed');
        return;
      }
      verdict = { requestId: quote.requestId, token: error.token };
    }
    this.providers.serverSideEmit(FORWARDED_VERDICT, verdict);
  }
}

import { KeyedRateLimiter, TokenBucket, type RateLimit } from '../domain/token-bucket.js';

/** What charging a packet to its connection's and address's budgets says. */
export interface ByteCharge {
  /** Both budgets held the packet's size. */
  readonly fits: boolean;
  /**
   * How long the connection reads nothing more: 0 unless a budget owes, else until every budget holds an
   * ordinary payload again, so that a small request after the wait fits.
   */
  readonly pauseMs: number;
}

/**
 * The bytes each connection and each client address may send this instance, as token buckets of bytes. A
 * packet is charged as soon as it is read, before anything looks into it, and whether or not it fits: its bytes
 * were read, so a budget may owe, and the connection then reads nothing until it holds some again. Counted here
 * alone, not through the store: what the budget spares is this instance's event loop (docs/websocket.md, "Bounds").
 */
export class ByteBudgets {
  private readonly addresses: KeyedRateLimiter;

  constructor(
    private readonly perConnection: RateLimit,
    perAddress: RateLimit,
    /** What a budget that owed must hold again before its connections read on. */
    private readonly headroom: number,
    private readonly now: () => number,
  ) {
    this.addresses = new KeyedRateLimiter(perAddress);
  }

  /** One connection's charger, also drawing on its address's budget. */
  forConnection(address: string): (bytes: number) => ByteCharge {
    const connection = new TokenBucket(this.perConnection, this.now());
    return (bytes) => {
      const now = this.now();
      const connectionHeld = connection.charge(now, bytes);
      const addressHeld = this.addresses.charge(address, now, bytes);
      const owes = connection.owes(now) || this.addresses.owes(address, now);
      return {
        fits: connectionHeld && addressHeld,
        pauseMs: owes
          ? Math.max(
              connection.msUntilHolding(now, this.headroom),
              this.addresses.msUntilHolding(address, now, this.headroom),
            )
          : 0,
      };
    };
  }
}

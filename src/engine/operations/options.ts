/** Operator knobs of quoting and order upkeep. Times in milliseconds, timelocks in blocks. */
export interface EngineOptions {
  /** How long providers have to answer a quote request; the best valid answer by then wins. */
  readonly quoteDeadlineMs: number;
  /** Live swaps allowed at once, auctions in progress included. */
  readonly maxSwapsInFlight: number;
  /** Shortest fund window a maker quote may give the user, counted from the quote deadline. */
  readonly minFundWindowMs: number;
  /** Longest fund window a maker quote may give the user, counted from the quote deadline. */
  readonly maxFundWindowMs: number;
  /** Bounds of a Bitcoin HTLC's refund height, in blocks above the current height. */
  readonly minTimelockBlocks: number;
  readonly maxTimelockBlocks: number;
  /**
   * The swap contract's own refund delay. `fund(orderUUID, paymentHash, claimer)` carries no timelock,
   * so an Ethereum order's refundable height is the current height plus this.
   */
  readonly ethereumRefundDelayBlocks: number;
  /** How often orders whose fund window passed are moved to FundWindowElapsed. */
  readonly sweepIntervalMs: number;
  /**
   * How long past its fund window an order waits for that move: long enough for the chain watchers to read the
   * chain past the window's end, so that a funding mined in time but read later is judged by its block's time,
   * not found on an order already called elapsed. The service sets it from the watchers' poll intervals and, on
   * Ethereum, the slot time.
   */
  readonly fundWindowGraceMs: number;
  /** How often the store's chain views are read to notice new block heights. */
  readonly chainViewPollIntervalMs: number;
  /** How often connected providers are reconciled with the providers the store marks active. */
  readonly presenceIntervalMs: number;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
  quoteDeadlineMs: 3_000,
  maxSwapsInFlight: 1_000,
  minFundWindowMs: 5 * 60_000,
  maxFundWindowMs: 24 * 60 * 60_000,
  minTimelockBlocks: 24,
  maxTimelockBlocks: 2_016,
  ethereumRefundDelayBlocks: 5_760,
  sweepIntervalMs: 1_000,
  fundWindowGraceMs: 0,
  chainViewPollIntervalMs: 2_000,
  presenceIntervalMs: 15_000,
};

/** Fills in defaults and refuses values that would make the service misbehave silently. */
export function resolveEngineOptions(overrides: Partial<EngineOptions> = {}): EngineOptions {
  const options = { ...DEFAULT_ENGINE_OPTIONS, ...overrides };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`engine option ${name} must be a non-negative integer, got ${String(value)}`);
    }
  }
  if (options.minFundWindowMs > options.maxFundWindowMs) {
    throw new RangeError('engine option minFundWindowMs must not exceed maxFundWindowMs');
  }
  if (options.minTimelockBlocks > options.maxTimelockBlocks) {
    throw new RangeError('engine option minTimelockBlocks must not exceed maxTimelockBlocks');
  }
  return options;
}

import type { OrderMoveStore } from '../../store/store.js';
import type { OrderTransitions } from './order-transitions.js';

export interface SweepOptions {
  /** Stops the sweep between orders; the next sweep picks up the rest. */
  readonly signal?: AbortSignal;
  /**
   * How long past its expiry an order still waits (`EngineOptions.fundWindowGraceMs`): the chain watchers read
   * the chain past the window's end first, and judge a funding they find there by its block's time.
   */
  readonly graceMs?: number;
}

/**
 * Moves every order whose fund window passed without funds to FundWindowElapsed. Run at start and
 * periodically, it also catches the windows that closed while no instance was running.
 * Resolves with the number of orders this call moved; another instance may have moved others.
 */
export async function sweepElapsedFundWindows(
  store: OrderMoveStore,
  transitions: OrderTransitions,
  now: number,
  { signal, graceMs = 0 }: SweepOptions = {},
): Promise<number> {
  const expired = await store.listOrdersExpiredIn('WaitingForFundingTx', now - graceMs);
  let moved = 0;
  for (const order of expired) {
    if (signal?.aborted) break;
    const won = await transitions.apply({
      orderId: order.id,
      from: 'WaitingForFundingTx',
      to: 'FundWindowElapsed',
      at: now,
      cause: { source: 'timer', reason: 'fundWindowElapsed' },
    });
    if (won) moved += 1;
  }
  return moved;
}

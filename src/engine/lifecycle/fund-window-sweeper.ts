import type { OrderMoveStore } from '../../store/store.js';
import type { OrderTransitions } from './order-transitions.js';

/**
 * Moves every order whose fund window passed without funds to FundWindowElapsed. Run at start and
 * periodically, it also catches the windows that closed while no instance was running.
 * Stops between orders once `signal` is aborted; the next sweep picks up the rest.
 * Resolves with the number of orders this call moved; another instance may have moved others.
 */
export async function sweepElapsedFundWindows(
  store: OrderMoveStore,
  transitions: OrderTransitions,
  now: number,
  signal?: AbortSignal,
): Promise<number> {
  const expired = await store.listOrdersExpiredIn('WaitingForFundingTx', now);
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

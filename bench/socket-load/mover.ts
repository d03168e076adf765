import { setImmediate as yieldToIo, setTimeout as sleep } from 'node:timers/promises';
import type { OrderState } from '../../src/domain/states.js';
import type { OrderTransitions } from '../../src/engine/lifecycle/order-transitions.js';
import type { MovingOrder } from './messages.js';

const TICK_MS = 5;
/**
 * Moves committing at once, at most: below the PostgreSQL pool's 10 connections, so the subscribers' own reads
 * still get one (thousands waiting for a connection would time out, and the service take the store for down).
 */
const MAX_IN_FLIGHT = 8;

export interface MoveCounts {
  readonly applied: number;
  /** Due while the order's previous move was still committing, or more than a second overdue. */
  readonly skipped: number;
  /** The store found the order elsewhere than the mover left it, or failed. */
  readonly refused: number;
}

/**
 * Funding seen, then reorged out of the chain, and seen again: the one cycle of the state machine
 * (src/domain/states.ts), so an order can move once a second for as long as the bench runs.
 */
function nextState(state: OrderState): OrderState {
  return state === 'WaitingForFundingTx' ? 'WaitingForFundingTxConfirmation' : 'WaitingForFundingTx';
}

/**
 * Moves each order once per second through the service's own transitions (as its chain watcher does), the
 * orders' moves spread evenly over each second.
 */
export async function moveOrders(
  transitions: OrderTransitions,
  orders: readonly MovingOrder[],
  seconds: number,
): Promise<MoveCounts> {
  const states = orders.map((): OrderState => 'WaitingForFundingTx');
  const busy = orders.map(() => false);
  const pending = new Set<Promise<void>>();
  const totalMoves = orders.length * seconds;
  const spacingMs = 1000 / orders.length;
  const started = performance.now();
  let next = 0;
  let applied = 0;
  let skipped = 0;
  let refused = 0;

  const move = async (index: number): Promise<void> => {
    const order = orders[index]!;
    const from = states[index]!;
    const to = nextState(from);
    busy[index] = true;
    try {
      const reason = to === 'WaitingForFundingTx' ? 'fundingReorged' : 'fundingSeen';
      const moved = await transitions.apply({
        orderId: order.orderId,
        from,
        to,
        at: Date.now(),
        cause: { source: 'chain', reason, chain: order.chain },
      });
      if (moved) {
        states[index] = to;
        applied++;
      } else refused++;
    } catch {
      // Counted, not thrown: the report says how many moves failed, and a failed move must not stop the others.
      refused++;
    } finally {
      busy[index] = false;
    }
  };

  while (next < totalMoves) {
    const dueBy = Math.floor((performance.now() - started) / spacingMs);
    // A move a second late is superseded by the order's next one: the store is not keeping up, and it shows.
    for (; next < totalMoves && next < dueBy - orders.length; next++) skipped++;
    for (; next < totalMoves && next <= dueBy && pending.size < MAX_IN_FLIGHT; next++) {
      const index = next % orders.length;
      if (busy[index]) {
        skipped++;
        continue;
      }
      const moving = move(index);
      pending.add(moving);
      void moving.finally(() => pending.delete(moving));
    }
    if (pending.size >= MAX_IN_FLIGHT) {
      await Promise.race(pending);
      // SQLite's moves settle without I/O: waiting on them alone would keep the events from ever being written out.
      await yieldToIo();
    } else await sleep(TICK_MS);
  }
  await Promise.all(pending);
  return { applied, skipped, refused };
}

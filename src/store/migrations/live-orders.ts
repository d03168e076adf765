import { LIVE_ORDER_STATES } from '../../domain/states.js';

export { LIVE_ORDER_STATES };

/** The partial unique index both stores name, so a violation of it is recognised by name. */
export const LIVE_ORDER_INDEX = 'orders_one_live_per_payment_hash';

export const LIVE_ORDER_STATE_LIST = LIVE_ORDER_STATES.map((state) => `'${state}'`).join(', ');

/** One conflict row: `payment_hash`, and `orders`, the ids with their states joined by commas. */
export function explainLiveOrderConflicts(rows: readonly Record<string, unknown>[]): string {
  const conflicts = rows.map((row) => `payment hash ${String(row.payment_hash)} has orders ${String(row.orders)}`);
  return (
    `several live orders share a payment hash (${conflicts.join('; ')}). Two HTLCs for one payment hash let the ` +
    "second be claimed with the first's preimage: decide which order stands, move every other one out of the " +
    `live states (${LIVE_ORDER_STATES.join(', ')}), then start lnswap again`
  );
}

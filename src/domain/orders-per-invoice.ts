import type { ErrorToken } from './errors.js';
import { LIVE_ORDER_STATES, type OrderState } from './states.js';

const LIVE: ReadonlySet<OrderState> = new Set(LIVE_ORDER_STATES);

/**
 * Why a new order in `state` may not be stored beside the orders its payment hash already has (their states),
 * or undefined when it may. A new live order, the one kind that asks for an HTLC, is refused while any order of
 * its payment hash exists: `SwapAlreadyInProgress` while one is live, `InvoiceAlreadyHadOrder` once every one
 * left the live states. An order whose fund window elapsed can still be funded (a late payment to its Bitcoin
 * address; on Ethereum a slot opens at any time) and so can a refunded one: once a second order's claim made the
 * preimage public, such a funding is claimable without the invoice being paid for it. The payee issues a new
 * invoice instead. A record in any other state makes no HTLC: snapshots hold histories of several.
 *
 * @example
 * refusalOfNewOrder('WaitingForFundingTx', ['FundWindowElapsed']); // 'InvoiceAlreadyHadOrder'
 */
export function refusalOfNewOrder(state: OrderState, earlier: readonly OrderState[]): ErrorToken | undefined {
  if (!LIVE.has(state) || earlier.length === 0) return undefined;
  return earlier.some((other) => LIVE.has(other)) ? 'SwapAlreadyInProgress' : 'InvoiceAlreadyHadOrder';
}

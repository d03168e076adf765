import { ORDER_STATES, type OrderState } from '../domain/states.js';

/**
 * States in which an order still ties up its invoice. Only a fund window that elapsed frees it:
 * once funds moved, the preimage may be public (claimed on chain) or about to be, and a second
 * HTLC locked to the same payment hash could be claimed without paying the invoice again.
 */
export const INVOICE_BLOCKING_STATES: readonly OrderState[] = ORDER_STATES.filter(
  (state) => state !== 'FundWindowElapsed',
);

/**
 * Swaps the operator's in-flight limit counts: waiting for funds or for the provider to pay. Both stores
 * hold at most one order per payment hash in these states (a unique index, store/migrations/live-orders.ts);
 * `INVOICE_BLOCKING_STATES` adds the settled and refunding ones, which only this service's check covers.
 */
export const IN_FLIGHT_STATES: readonly OrderState[] = [
  'WaitingForFundingTx',
  'WaitingForFundingTxConfirmation',
  'WaitingForAdditionalFundingTxConfirmation',
  'PartiallyFunded',
  'Funded',
];

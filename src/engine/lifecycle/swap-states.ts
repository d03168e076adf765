import { ORDER_STATES, type OrderState } from '../../domain/states.js';

/**
 * States in which an order still ties up its invoice. Only a fund window that elapsed frees it:
 * once funds moved, the preimage may be public (claimed on chain) or about to be, and a second
 * HTLC locked to the same payment hash could be claimed without paying the invoice again.
 */
export const INVOICE_BLOCKING_STATES: readonly OrderState[] = ORDER_STATES.filter(
  (state) => state !== 'FundWindowElapsed',
);

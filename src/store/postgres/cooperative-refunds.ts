import type { CooperativeRefundSignature } from '../../domain/cooperative-refund.js';
import type { CooperativeRefundStore } from '../store.js';
import { rows, type PostgresContext } from './context.js';
import { SELECT_COOPERATIVE_REFUNDS } from './queries.js';
import { insertCooperativeRefunds } from './writes.js';

export function postgresCooperativeRefunds(context: PostgresContext): CooperativeRefundStore {
  return {
    // No cached answer holds a signature (refund details are read afresh): nothing to tell the caches.
    recordCooperativeRefunds: async (orderId, refunds) => {
      await insertCooperativeRefunds(context.pool, orderId, refunds);
    },
    listCooperativeRefunds: (orderId) =>
      rows<CooperativeRefundSignature>(context, SELECT_COOPERATIVE_REFUNDS, [orderId]),
  };
}

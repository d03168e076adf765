import type { CooperativeRefundSignature } from '../../domain/cooperative-refund.js';
import type { CooperativeRefundStore } from '../store.js';
import { importSettled, type SqliteContext } from './context.js';

export function sqliteCooperativeRefunds(context: SqliteContext): CooperativeRefundStore {
  const { statements, writes } = context;
  return {
    async recordCooperativeRefunds(orderId, refunds) {
      await importSettled(context);
      // No cached answer holds a signature (refund details are read afresh): nothing to tell the caches.
      writes.recordCooperativeRefunds(orderId, refunds);
    },
    listCooperativeRefunds: async (orderId) =>
      statements.selectCooperativeRefunds.all(orderId) as CooperativeRefundSignature[],
  };
}

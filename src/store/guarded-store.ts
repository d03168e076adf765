import type { StoreOutage } from './availability.js';
import { guardFor, guardMethods, type AsyncMethodName, type MethodList } from './guard.js';
import type { Store } from './store.js';

/** The calls of every role that reach the database; `close` is not one of them. */
type GuardedMethod = Exclude<AsyncMethodName<Store>, 'close'>;

const GUARDED_METHODS: MethodList<GuardedMethod> = {
  getConfiguration: true,
  getOrder: true,
  findOrdersByInvoiceHash: true,
  getOrderHistory: true,
  getOrderHistorySince: true,
  createOrder: true,
  transitionOrder: true,
  listOrdersExpiredIn: true,
  findOrdersByPaymentHash: true,
  countOrdersInStates: true,
  recordCooperativeRefunds: true,
  listCooperativeRefunds: true,
  getChainWatch: true,
  listChainObservations: true,
  listOrdersOfTickersInStates: true,
  applyChainStep: true,
  setChainViews: true,
  upsertProvider: true,
  setProviderActive: true,
  addProviderCredential: true,
  findProviderCredentialByApiKey: true,
  listProviderCredentials: true,
  revokeProviderCredential: true,
  setProviderPayoutAddress: true,
  addToken: true,
  takeRateLimitToken: true,
  importAtomically: true,
};

/**
 * The store as the service uses it: a call that cannot reach the database fails with ServiceUnavailable
 * (and the outage is logged once), any other failure as it was. Every method of every role is guarded the
 * same way (`guardMethods`), except the snapshot stream, whose reads happen as it is iterated, after the
 * call has returned.
 */
export function guardStore(inner: Store, outage: StoreOutage): Store {
  return {
    ...guardMethods(inner, GUARDED_METHODS, guardFor(outage)),
    streamOrders: (batchSize) => inner.streamOrders(batchSize),
    dialect: inner.dialect,
    changes: inner.changes,
    close: () => inner.close(),
  };
}

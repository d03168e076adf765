import type { ColdSample } from './dataset/cold-sample.js';
import type { DatasetSample } from './dataset/order-generator.js';
import { SeededRandom } from './dataset/seeded-random.js';

export interface Scenario {
  readonly name: string;
  readonly request: string;
  /** Shuffled; the load tool walks them in this order. */
  readonly paths: readonly string[];
  /** Checked before measuring (200 everywhere, the same body from every store): a prefix of `paths`. */
  readonly verifiedPaths: readonly string[];
}

/** The hot set the target also holds for: orders drawn at random from the whole store. */
export const RANDOM_HOT_SET_SIZE = 5000;
/**
 * Cold scenarios check this many of their paths before measuring: every one of 200,000 would take minutes per
 * scenario, and a wrong answer shows up in any few thousand.
 */
export const COLD_VERIFIED_PATHS = 2000;

export function shuffled<T>(items: readonly T[], seed: string): T[] {
  const result = [...items];
  const random = new SeededRandom(seed);
  for (let i = result.length - 1; i > 0; i--) {
    const j = random.integer(0, i);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

const byId = (id: string) => `/api/orders/${id}`;
const byInvoiceHash = (hash: string) => `/api/orders?invoiceHash=${hash}`;
const fundDetails = (id: string) => `/api/orders/${id}/fundDetails`;
const refund = (id: string) => `/api/orders/${id}/refund`;

function scenario(name: string, request: string, paths: string[], verified = paths.length): Scenario {
  const walked = shuffled(paths, name);
  return { name, request, paths: walked, verifiedPaths: walked.slice(0, verified) };
}

/**
 * The read requests wallets make all the time. Hot: over the bench's few thousand sampled orders (or 5,000 drawn
 * from the cold sample), which the response cache holds after the warm-up. Cold: over 200,000 random orders and
 * invoices of the whole store, far more than the cache holds, so nearly every answer is read from the store.
 */
export function buildScenarios(sample: DatasetSample, cold: ColdSample): Scenario[] {
  const ids = sample.orders.map((order) => order.id);
  const coldIds = shuffled(cold.orderIds, 'cold-order-ids');
  const coldHashes = shuffled(cold.invoiceHashes, 'cold-invoice-hashes');
  const randomIds = coldIds.slice(0, RANDOM_HOT_SET_SIZE);
  const randomHashes = coldHashes.slice(0, RANDOM_HOT_SET_SIZE);
  return [
    scenario('order-by-id', 'GET /api/orders/:id', ids.map(byId)),
    scenario('orders-by-invoice-hash', 'GET /api/orders?invoiceHash=', sample.invoiceHashes.map(byInvoiceHash)),
    scenario('fund-details', 'GET /api/orders/:id/fundDetails', ids.map(fundDetails)),
    scenario('refund', 'GET /api/orders/:id/refund', ids.map(refund)),
    scenario('requirements', 'GET /api/markets/requirements', ['/api/markets/requirements']),
    scenario('random-5000-order-by-id', 'GET /api/orders/:id', randomIds.map(byId)),
    scenario('random-5000-orders-by-invoice-hash', 'GET /api/orders?invoiceHash=', randomHashes.map(byInvoiceHash)),
    scenario('cold-order-by-id', 'GET /api/orders/:id', coldIds.map(byId), COLD_VERIFIED_PATHS),
    scenario(
      'cold-orders-by-invoice-hash',
      'GET /api/orders?invoiceHash=',
      coldHashes.map(byInvoiceHash),
      COLD_VERIFIED_PATHS,
    ),
    scenario('cold-fund-details', 'GET /api/orders/:id/fundDetails', coldIds.map(fundDetails), COLD_VERIFIED_PATHS),
    scenario('cold-refund', 'GET /api/orders/:id/refund', coldIds.map(refund), COLD_VERIFIED_PATHS),
  ];
}

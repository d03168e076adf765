import type { DatasetSample } from './dataset/order-generator.js';
import { SeededRandom } from './dataset/seeded-random.js';

export interface Scenario {
  readonly name: string;
  readonly request: string;
  /** Shuffled; the load tool walks them in this order. */
  readonly paths: readonly string[];
}

function shuffled(paths: string[], seed: string): string[] {
  const random = new SeededRandom(seed);
  for (let i = paths.length - 1; i > 0; i--) {
    const j = random.integer(0, i);
    [paths[i], paths[j]] = [paths[j]!, paths[i]!];
  }
  return paths;
}

/** The read requests wallets make all the time, over a few thousand random orders and invoices of the dataset. */
export function buildScenarios(sample: DatasetSample): Scenario[] {
  const ids = sample.orders.map((order) => order.id);
  const scenarios: Scenario[] = [
    { name: 'order-by-id', request: 'GET /api/orders/:id', paths: ids.map((id) => `/api/orders/${id}`) },
    {
      name: 'orders-by-invoice-hash',
      request: 'GET /api/orders?invoiceHash=',
      paths: sample.invoiceHashes.map((hash) => `/api/orders?invoiceHash=${hash}`),
    },
    {
      name: 'fund-details',
      request: 'GET /api/orders/:id/fundDetails',
      paths: ids.map((id) => `/api/orders/${id}/fundDetails`),
    },
    { name: 'refund', request: 'GET /api/orders/:id/refund', paths: ids.map((id) => `/api/orders/${id}/refund`) },
    { name: 'requirements', request: 'GET /api/markets/requirements', paths: ['/api/markets/requirements'] },
  ];
  return scenarios.map((scenario) => ({ ...scenario, paths: shuffled([...scenario.paths], scenario.name) }));
}

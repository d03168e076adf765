import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { LnswapError } from '../domain/errors.js';
import { catalogOf } from '../domain/market-catalog.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import type { Store } from '../store/store.js';
import { presentOrderHistory } from '../wire/presenters.js';
import { routeMethods } from './methods.js';
import { orderHistorySchema } from './schemas.js';

export const ORDER_HISTORY_PATH = '/tracker/orders/:id/history';

export interface OrderHistoryRoutesOptions {
  readonly store: Store;
  /** The chain id of the Ethereum node the service follows, for wallets' payment links; unknown without one. */
  readonly ethereumChainId?: number;
}

/**
 * An order's state history for the tracker page, under its own prefix: the read API under /api is the
 * interface's and carries no route or field beyond it (docs/tracker.md says why this lives apart).
 */
export const orderHistoryRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: OrderHistoryRoutesOptions }> = async (
  app,
  { store, ethereumChainId },
) => {
  app.route({
    method: routeMethods(app),
    url: ORDER_HISTORY_PATH,
    schema: orderHistorySchema,
    handler: async (request) => {
      const id = normalizeOrderId(request.params.id);
      if (id === undefined) throw new LnswapError('InvalidOrderId');
      const order = await store.getOrder(id);
      if (order === undefined) throw new LnswapError('OrderNotFound');
      const [history, configuration] = await Promise.all([store.getOrderHistorySince(id, 0), store.getConfiguration()]);
      return presentOrderHistory({
        order,
        market: catalogOf(configuration).marketOf(order),
        history,
        chains: configuration.chains,
        ...(ethereumChainId === undefined ? {} : { ethereumChainId }),
      });
    },
  });
};

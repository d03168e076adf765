import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { catalogOf, type MarketCatalog } from '../domain/market-catalog.js';
import type { Market } from '../domain/markets.js';
import { requirementsForAllMarkets, requirementsForMarket } from '../domain/requirements.js';
import type { ConfigurationReadStore } from '../store/store.js';
import { routeMethods } from './methods.js';
import { presentMarket, presentRequirements } from '../wire/presenters.js';
import { allRequirementsSchema, listMarketsSchema, marketRequirementsSchema } from './schemas.js';

export interface MarketRoutesOptions {
  readonly store: ConfigurationReadStore;
}

function knownMarket(name: string, catalog: MarketCatalog): Market {
  const market = catalog.findMarket(name);
  if (market === undefined) throw new Error(`offered market ${name} is not one this software knows`);
  return market;
}

export const marketRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: MarketRoutesOptions }> = async (
  app,
  { store },
) => {
  const method = routeMethods(app);

  app.route({
    method,
    url: '/api/markets',
    schema: listMarketsSchema,
    handler: async () => {
      const configuration = await store.getConfiguration();
      const catalog = catalogOf(configuration);
      return configuration.markets.map((name) => presentMarket(knownMarket(name, catalog)));
    },
  });

  app.route({
    method,
    url: '/api/markets/requirements',
    schema: allRequirementsSchema,
    handler: async () => {
      const { markets, providers } = await store.getConfiguration();
      return requirementsForAllMarkets(markets, providers).map(presentRequirements);
    },
  });

  app.route({
    method,
    url: '/api/markets/:market/requirements',
    schema: marketRequirementsSchema,
    handler: async (request) => {
      const { markets, providers } = await store.getConfiguration();
      return presentRequirements(requirementsForMarket(request.params.market, markets, providers));
    },
  });
};

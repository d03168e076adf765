import type { Logger } from 'pino';
import type { Namespace, Socket } from 'socket.io';
import { LnswapError } from '../domain/errors.js';
import { offeredMarketNamed } from '../domain/markets.js';
import { parseActiveConfiguration } from '../engine/lifecycle/active-configuration.js';
import { authenticateProvider } from '../engine/operations/credentials.js';
import type { OrderTransitions } from '../engine/lifecycle/order-transitions.js';
import { applyPaymentResult, readPaymentResult } from '../engine/lifecycle/payment-result.js';
import { applyRefundAuthorization, readRefundAuthorization } from '../engine/lifecycle/refund-authorization.js';
import type { ConfigurationReadStore, CooperativeRefundStore, OrderReadStore, ProviderStore } from '../store/store.js';
import type { ClientAddresses } from './client-address.js';
import type { MakerQuoteRouter } from './maker-quote-router.js';
import type { ProviderPresence, ProviderSocketData } from './provider-presence.js';
import type { AddressLimits } from './address-limits.js';
import { guarded } from './guarded.js';
import { handleRequests, type RequestContext, type RequestHandler } from './requests.js';
import { isMarketQuotesRoom, marketQuotesRoom, providerRoom } from './rooms.js';
import type { SocketOptions } from './socket-options.js';
import { payloadReader } from '../engine/lifecycle/payload-shapes.js';
import { marketListShape } from '../wire/socket-payloads.js';

export interface ProviderNamespaceDependencies {
  readonly store: ConfigurationReadStore & OrderReadStore & ProviderStore & CooperativeRefundStore;
  readonly router: MakerQuoteRouter;
  readonly presence: ProviderPresence;
  readonly transitions: OrderTransitions;
  readonly options: SocketOptions;
  readonly addressLimits: AddressLimits;
  readonly addresses: ClientAddresses;
  readonly now: () => number;
  readonly logger: Logger;
  /** The chain id of the Ethereum node the service follows: the domain of cooperative refund signatures. */
  readonly ethereumChainId?: number;
}

/** `/provider/v1`: liquidity providers authenticate, configure, subscribe to quote requests and answer them. */
export function serveProviderNamespace(namespace: Namespace, dependencies: ProviderNamespaceDependencies): void {
  const { logger, addressLimits, options } = dependencies;
  namespace.on(
    'connection',
    guarded(
      logger,
      'serving a provider connection',
      (socket: Socket) => {
        const handlers = providerHandlers(socket, dependencies);
        const address = dependencies.addresses.of(socket);
        const takeAddressToken = () => addressLimits.take('events', address, options.eventsPerAddress);
        handleRequests(socket, handlers, { ...options, takeAddressToken, now: dependencies.now }, logger);
        socket.on(
          'disconnect',
          guarded(logger, 'marking a provider gone', () => {
            const { providerId, configuredMarkets } = socket.data as ProviderSocketData;
            if (providerId === undefined || (configuredMarkets?.length ?? 0) === 0) return;
            dependencies.presence.providerLeft(providerId, socket.id);
          }),
        );
      },
      (socket) => socket.disconnect(true),
    ),
  );
}

function providerHandlers(socket: Socket, dependencies: ProviderNamespaceDependencies): Record<string, RequestHandler> {
  const { store, router, transitions, options, addressLimits, now, logger } = dependencies;
  const data = socket.data as ProviderSocketData;
  const address = dependencies.addresses.of(socket);

  /** Every event but `authenticate` needs an authenticated connection. */
  const authenticated =
    (handle: (providerId: string, payload: unknown, context: RequestContext) => Promise<unknown>): RequestHandler =>
    async (payload, context) => {
      if (data.providerId === undefined) throw new LnswapError('InvalidOrMissingCredentials');
      return handle(data.providerId, payload, context);
    };

  return {
    authenticate: async (payload) => {
      if (!(await addressLimits.take('authentications', address, options.authenticationsPerAddress))) {
        throw new LnswapError('RateLimitExceeded');
      }
      const credential = await authenticateProvider(store, payload);
      // One connection speaks for one provider for its whole life.
      if (data.providerId !== undefined && data.providerId !== credential.name) {
        throw new LnswapError('InvalidOrMissingCredentials');
      }
      data.providerId = credential.name;
      data.apiKey = credential.apiKey;
      await socket.join(providerRoom(credential.name));
      return undefined;
    },

    activeConfiguration: authenticated(async (providerId, payload) => {
      const { markets: offered } = await store.getConfiguration();
      const markets = parseActiveConfiguration(payload, offered);
      const configured = Object.keys(markets);
      const stillQuoted = new Set(configured.map(marketQuotesRoom));
      for (const room of [...socket.rooms]) {
        if (isMarketQuotesRoom(room) && !stillQuoted.has(room)) await socket.leave(room);
      }
      // Set before the store write: a presence check that sees the store's flag must see this too.
      data.configuredMarkets = configured;
      await store.upsertProvider({ id: providerId, active: configured.length > 0, markets });
      return undefined;
    }),

    subscribeToQuotes: authenticated(async (_providerId, payload) => {
      const markets = await readMarketList(store, payload);
      if (markets.some((market) => !(data.configuredMarkets ?? []).includes(market))) {
        throw new LnswapError('InvalidOrMissingActiveConfigurationFields');
      }
      await socket.join(markets.map(marketQuotesRoom));
      return undefined;
    }),

    unsubscribeFromQuotes: authenticated(async (_providerId, payload) => {
      for (const market of await readMarketList(store, payload)) await socket.leave(marketQuotesRoom(market));
      return undefined;
    }),

    makerQuote: authenticated(async (providerId, payload) => {
      const receivedAt = now();
      // Read per quote, not kept from authenticate: a payout address the operator changes, or a revocation,
      // holds from the next quote on.
      const credential =
        data.apiKey === undefined ? undefined : await store.findProviderCredentialByApiKey(data.apiKey);
      if (credential === undefined || credential.name !== providerId || credential.revokedAt !== undefined) {
        throw new LnswapError('InvalidOrMissingCredentials');
      }
      const provider = {
        id: providerId,
        ...(credential.ethereumPayoutAddress === undefined
          ? {}
          : { ethereumPayoutAddress: credential.ethereumPayoutAddress }),
      };
      await router.submit(payload, receivedAt, provider);
      return undefined;
    }),

    paymentResult: authenticated(async (providerId, payload, { requestId }) => {
      const result = readPaymentResult(payload);
      await applyPaymentResult(result, store, transitions, now(), providerId, requestId);
      if (!result.success) {
        const { orderId, failedReason } = result;
        logger.info({ providerId, orderId, failedReason, requestId }, 'provider could not pay');
      }
      return undefined;
    }),

    refundAuthorization: authenticated(async (providerId, payload, { requestId }) => {
      const authorization = readRefundAuthorization(payload);
      await applyRefundAuthorization(authorization, {
        store,
        transitions,
        ethereumChainId: dependencies.ethereumChainId,
        now: now(),
        providerId,
        requestId,
      });
      const funders = authorization.refunds.map(({ funder }) => funder);
      logger.info({ providerId, orderId: authorization.orderId, funders, requestId }, 'provider authorized refunds');
      return undefined;
    }),
  };
}

const readMarketNames = payloadReader<string[]>(marketListShape);

/** `[market, ...]`: non-empty, every name an offered market (any case). Canonical names out. */
async function readMarketList(store: ConfigurationReadStore, payload: unknown): Promise<string[]> {
  const names = readMarketNames(payload);
  const { markets: offered } = await store.getConfiguration();
  return names.map((name) => {
    const market = offeredMarketNamed(name, offered);
    if (market === undefined) throw new LnswapError('InvalidOrMissingMarkets');
    return market;
  });
}

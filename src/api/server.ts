import { DEFAULT_RESPONSE_CACHE_BYTES } from './response-cache-size.js';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { LnswapError } from '../domain/errors.js';
import type { FunderRefundStore } from '../engine/lifecycle/order-refund.js';
import type { ConfigurationReadStore, OrderReadStore, StoreChanges } from '../store/store.js';
import {
  handleClientError,
  handleFrameworkError,
  handleRouteError,
  replyMethodNotAllowed,
  replyNotFound,
} from './errors.js';
import { deferredChildLogger } from './deferred-logger.js';
import { marketRoutes } from './markets.js';
import { acceptEveryHttpMethod, isReadMethod } from './methods.js';
import { orderRoutes } from './orders.js';
import { OrderReads } from './order-reads.js';
import { readLaneBefore } from './read-lane.js';
import { healthRoutes } from './health.js';
import { registerOpenApi, serveOpenApiDocument } from './openapi.js';
import type { ReadinessVerdict } from '../engine/operations/readiness.js';
import { METRICS_CONTENT_TYPE, type ServiceMetrics } from '../engine/operations/metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { metricsRoutes } from './metrics.js';
import { orderHistoryRoutes } from './order-history.js';
import { trackerPageRoutes } from './tracker-page.js';

export interface ApiServerOptions {
  readonly store: ConfigurationReadStore & OrderReadStore & StoreChanges & FunderRefundStore;
  readonly logger?: FastifyServerOptions['logger'];
  /** An existing pino logger to log through (takes precedence over `logger`). */
  readonly loggerInstance?: FastifyBaseLogger;
  /** One `debug` line per answered request (off by default: it costs throughput), from Fastify and the read lane. */
  readonly accessLog?: boolean;
  /** Answer the most polled order reads before Fastify (`read-lane.ts`); on unless false. */
  readonly readLane?: boolean;
  /** Memory for serialized answers about orders (default 16 MiB); 0 turns the cache off. */
  readonly responseCacheBytes?: number;
  /** What `/readyz` answers; without it the instance is ready whenever it answers. */
  readonly readiness?: () => Promise<ReadinessVerdict>;
  /** Serve `/metrics` from these, with the API's own request and cache metrics added; none without it. */
  readonly metrics?: ServiceMetrics;
  /** The chain id of the Ethereum node followed, for the tracker page's payment links. */
  readonly ethereumChainId?: number;
}

// Longer than any request line Node accepts (16 KiB of headers), so an over-long id reaches the
// route and is refused as InvalidOrderId rather than by the router.
const MAX_PARAM_LENGTH = 64 * 1024;

function logEveryResponse(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.debug(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTimeMs: reply.elapsedTime },
      'request completed',
    );
    done();
  });
}

/** The read API, not yet listening: the caller listens (or injects), then closes it before the store. */
export async function buildApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const httpMetrics = options.metrics === undefined ? undefined : new HttpMetrics();
  const reads = new OrderReads({
    store: options.store,
    responseCacheBytes: options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES,
    ...(httpMetrics === undefined ? {} : { cacheCounts: httpMetrics.cache }),
  });
  const readLane = options.readLane !== false;
  const accessLog = options.accessLog === true;
  const app: FastifyInstance = Fastify({
    // The server Fastify would make (its timeouts as Fastify sets them), with the read lane in front.
    serverFactory: (fastifyHandler, settings) => {
      const handler = readLane
        ? readLaneBefore(fastifyHandler, {
            reads,
            // The lane logs only once requests arrive, by when `app` is built.
            log: () => app.log,
            accessLog,
            ...(httpMetrics === undefined ? {} : { metrics: httpMetrics }),
          })
        : fastifyHandler;
      // Fastify passes its options with their defaults filled in.
      const { keepAliveTimeout, requestTimeout, connectionTimeout } = settings as Record<string, number>;
      const server = createServer(handler);
      server.keepAliveTimeout = keepAliveTimeout!;
      server.requestTimeout = requestTimeout!;
      server.setTimeout(connectionTimeout);
      return server;
    },
    ...(options.loggerInstance === undefined
      ? { logger: options.logger ?? false }
      : { loggerInstance: options.loggerInstance }),
    genReqId: () => randomUUID(),
    childLoggerFactory: (logger, bindings, options) => deferredChildLogger(() => logger.child(bindings, options)),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    // Routes that know their fields refuse with their own token; anything else is a malformed request.
    schemaErrorFormatter: () => new LnswapError('BadRequest'),
    // Fastify's two info lines per request cost a fifth of the read path's throughput; failures are
    // logged where they are handled, and `accessLog` adds one debug line per request for whoever wants it.
    logController: new LogController({ disableRequestLogging: true }),
  });
  if (accessLog) logEveryResponse(app);

  acceptEveryHttpMethod(app);
  app.setErrorHandler(handleRouteError);

  // Refusals that do not depend on what was sent are given before any body is read, so no body
  // or content type can turn them into another answer. This hook is also what answers unknown
  // paths: it runs for Fastify's not-found route before that route's handler would.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (request.is404) {
      replyNotFound(reply);
      return;
    }
    if (!isReadMethod(request.method)) {
      replyMethodNotAllowed(reply);
      return;
    }
    done();
  });

  await registerOpenApi(app);
  serveOpenApiDocument(app);
  if (options.metrics !== undefined && httpMetrics !== undefined) {
    httpMetrics.register(options.metrics.registry);
    httpMetrics.observe(app);
    const { metrics } = options;
    await app.register(metricsRoutes, { exposition: () => metrics.exposition(), contentType: METRICS_CONTENT_TYPE });
  }
  await app.register(healthRoutes, options.readiness === undefined ? {} : { readiness: options.readiness });
  await app.register(marketRoutes, { store: options.store });
  app.addHook('onClose', async () => reads.stop());
  await app.register(orderRoutes, { reads });
  await app.register(orderHistoryRoutes, {
    store: options.store,
    ...(options.ethereumChainId === undefined ? {} : { ethereumChainId: options.ethereumChainId }),
  });
  await app.register(trackerPageRoutes);
  return app;
}

import { startService, type ServiceOptions } from '../service.js';
import { shutdownRequested } from './shutdown.js';

/**
 * Runs the service until SIGTERM or SIGINT, then stops accepting connections, lets in-flight
 * requests finish, and closes the store. `announce` hears the URL once the service listens.
 */
export async function serveUntilShutdown(options: ServiceOptions, announce: (url: string) => void): Promise<void> {
  const { store, logger } = options;
  const startFailed = new AbortController();
  const shutdown = shutdownRequested(logger, startFailed.signal);
  let service;
  try {
    service = await startService(options);
  } catch (error) {
    startFailed.abort();
    await store.close();
    throw error;
  }
  announce(service.url);
  const signal = await shutdown;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  await service.close();
  await store.close();
  logger.info('stopped');
}

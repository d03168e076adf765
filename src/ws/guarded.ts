import type { Logger } from 'pino';

/**
 * Wraps a socket.io listener so that an exception it throws is logged instead of escaping: socket.io
 * calls listeners from its own ticks, where an uncaught exception would end the process.
 */
export function guarded<Args extends unknown[]>(
  logger: Logger,
  what: string,
  listener: (...args: Args) => void,
  onFailure?: (...args: Args) => void,
): (...args: Args) => void {
  return (...args) => {
    try {
      listener(...args);
    } catch (error) {
      logger.error({ err: error }, `${what} failed`);
      try {
        onFailure?.(...args);
      } catch (cleanupError) {
        logger.error({ err: cleanupError }, `${what}: cleanup failed`);
      }
    }
  };
}

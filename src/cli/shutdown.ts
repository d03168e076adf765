import type { Logger } from 'pino';

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Resolves at the first SIGTERM or SIGINT, so the caller can stop gracefully; a second signal
 * means the operator will not wait, and ends the process at once. Once `stopListening` aborts (the
 * command ended without serving), the signals are left to whoever else listens: a command run inside a
 * longer-lived process (`runCommandLine`) leaves no listener behind.
 */
export function shutdownRequested(logger: Logger, stopListening?: AbortSignal): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
      for (const name of SHUTDOWN_SIGNALS) {
        process.once(name, () => {
          logger.warn({ signal: name }, 'second signal: exiting without waiting');
          process.exit(1);
        });
      }
      resolve(signal);
    };
    for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
    stopListening?.addEventListener('abort', () => {
      for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
    });
  });
}

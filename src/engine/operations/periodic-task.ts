import type { Logger } from 'pino';
import { isLnswapError } from '../../domain/errors.js';

export interface PeriodicTask {
  /** Cancels the next run, asks a run in progress to stop early, and waits for it. */
  stop(): Promise<void>;
}

export interface PeriodicTaskOptions {
  readonly intervalMs: number;
  /** Delay before the first run; defaults to running at once. */
  readonly firstRunAfterMs?: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Runs `work` repeatedly, waiting `intervalMs` after each run ends, so runs never overlap
 * however slow the database is. `work` gets a signal that is aborted on stop; long runs should
 * check it between steps.
 */
export function startPeriodicTask(
  work: (signal: AbortSignal) => Promise<unknown>,
  options: PeriodicTaskOptions,
): PeriodicTask {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = work(stopping.signal)
        .then(
          () => undefined,
          (error: unknown) => options.onError(error),
        )
        .finally(() => {
          if (!stopping.signal.aborted) schedule(options.intervalMs);
        });
    }, delayMs);
  };
  schedule(options.firstRunAfterMs ?? 0);

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

/** An unreachable store is logged once per outage, where it is noticed, not by every task on every run. */
export function upkeepFailed(logger: Logger, what: string): (error: unknown) => void {
  return (error) => {
    if (!(isLnswapError(error) && error.token === 'ServiceUnavailable')) logger.error({ err: error }, `${what} failed`);
  };
}

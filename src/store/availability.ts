import type { Logger } from 'pino';
import { LnswapError } from '../domain/errors.js';

/** PostgreSQL SQLSTATEs saying the server went away or refuses connections; class 08 is every connection error. */
const POSTGRES_UNAVAILABLE_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What pg says, without a code, when a connection breaks, cannot be made in time or a query outlives its timeout. */
const POSTGRES_CLIENT_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /is not queryable/,
  /^Query read timeout$/,
];

/** Whether `error` says the database cannot be reached right now, rather than that a request was wrong. */
export function isStoreUnavailableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') && code.length === 5) return true;
    if (POSTGRES_UNAVAILABLE_CODES.has(code) || NETWORK_CODES.has(code)) return true;
    // Another connection holds the write lock past the busy timeout.
    if (code.startsWith('SQLITE_BUSY')) return true;
  }
  return typeof message === 'string' && POSTGRES_CLIENT_MESSAGES.some((pattern) => pattern.test(message));
}

export const DEFAULT_PROBE_INTERVAL_MS = 1000;

/**
 * Turns "the database cannot be reached" into `ServiceUnavailable` and logs each outage twice: when it
 * starts and when the database answers again (found by the next successful call, or by probing every
 * second meanwhile). Under load an outage otherwise logs one stack per failed request.
 */
export class StoreOutage {
  private since: number | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly logger: Logger,
    private readonly probeIntervalMs = DEFAULT_PROBE_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get isOngoing(): boolean {
    return this.since !== undefined;
  }

  /** What to throw instead of `error`: ServiceUnavailable when the database cannot be reached, else `error`. */
  translate(error: unknown): unknown {
    if (!isStoreUnavailableError(error)) return error;
    if (this.since === undefined) {
      this.since = this.now();
      this.logger.error({ err: error }, 'store unavailable: answering ServiceUnavailable until it returns');
      this.scheduleProbe();
    }
    return new LnswapError('ServiceUnavailable');
  }

  /** A call reached the database. */
  answered(): void {
    if (this.since === undefined) return;
    this.logger.info({ outageMs: this.now() - this.since }, 'store available again');
    this.since = undefined;
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.probeTimer);
  }

  private scheduleProbe(): void {
    if (this.stopped) return;
    this.probeTimer = setTimeout(() => {
      this.probe().then(
        () => this.answered(),
        () => {
          if (this.since !== undefined) this.scheduleProbe();
        },
      );
    }, this.probeIntervalMs);
    this.probeTimer.unref();
  }
}

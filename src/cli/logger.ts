import { pino, type Logger } from 'pino';

/** JSON lines on stdout, level from LOG_LEVEL (default `info`, or the command's own default). */
export function createLogger(env: Readonly<Record<string, string | undefined>>, defaultLevel = 'info'): Logger {
  return pino({ name: 'lnswap', level: env.LOG_LEVEL ?? defaultLevel });
}

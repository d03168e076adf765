import { DEFAULT_RESPONSE_CACHE_BYTES } from '../api/response-cache-size.js';
import type { CliContext } from './command.js';
import { secretFromEnv, warnIfCredentialInFlag } from './secrets.js';
import { UsageError } from './usage-error.js';

/** Flags win over environment variables, which win over these. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/lnswap.sqlite';
export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';

type Environment = Readonly<Record<string, string | undefined>>;

/** The database URL may carry its password: DATABASE_URL or DATABASE_URL_FILE keep it out of the process list. */
export function databaseUrlFrom(flag: string | undefined, { env, stderr }: Pick<CliContext, 'env' | 'stderr'>): string {
  if (flag !== undefined) warnIfCredentialInFlag('db', flag, 'DATABASE_URL', stderr);
  const url = flag ?? secretFromEnv('DATABASE_URL', env) ?? DEFAULT_DATABASE_URL;
  if (url.trim() === '') throw new UsageError(`${flag === undefined ? 'DATABASE_URL' : '--db'} is empty`);
  return url;
}

export function portFrom(flag: string | undefined, env: Environment): number {
  const text = flag ?? env.PORT;
  if (text === undefined) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port <= 65535)) {
    const source = flag === undefined ? 'PORT' : '--port';
    throw new UsageError(`${source} must be a port number from 0 to 65535, not "${text}"`);
  }
  return port;
}

export function hostFrom(flag: string | undefined, env: Environment): string {
  const host = flag ?? env.HOST ?? DEFAULT_HOST;
  if (host.trim() === '') throw new UsageError(`${flag === undefined ? 'HOST' : '--host'} is empty`);
  return host;
}

export const DEFAULT_RESPONSE_CACHE_MB = DEFAULT_RESPONSE_CACHE_BYTES / (1024 * 1024);

/** Megabytes of cached answers about orders; 0 turns the cache off. */
export function responseCacheBytesFrom(flag: string | undefined, env: Environment): number {
  const text = flag ?? env.RESPONSE_CACHE_MB;
  if (text === undefined) return DEFAULT_RESPONSE_CACHE_BYTES;
  if (!/^\d{1,6}$/.test(text)) {
    const source = flag === undefined ? 'RESPONSE_CACHE_MB' : '--response-cache-mb';
    throw new UsageError(`${source} must be a whole number of megabytes, not "${text}"`);
  }
  return Number(text) * 1024 * 1024;
}

import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { UsageError } from './usage-error.js';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * A secret's text from the environment: the variable itself, or the file its `_FILE` variable names (as Docker
 * and Kubernetes mount secrets), without the file's trailing line break. Any local user can read a process's
 * arguments (`ps`), but only its owner and root its environment, so secrets have variables, never only flags.
 */
export function secretFromEnv(name: string, env: Environment): string | undefined {
  const direct = env[name];
  const path = env[`${name}_FILE`];
  if (path === undefined) return direct;
  if (direct !== undefined) throw new UsageError(`give ${name} or ${name}_FILE, not both`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`${name}_FILE names a file that cannot be read (${code}): ${path}`);
  }
  return text.replace(/\r?\n$/, '');
}

/** Query parameters whose name says they carry a credential, as node providers' URLs do. */
const CREDENTIAL_PARAMETER = /key|token|secret|pass|auth/i;
/** A path segment that looks like an API key, as Infura's `/v3/KEY` and Alchemy's `/v2/KEY`: long, with digits. */
const KEY_SEGMENT = /^(?=.*\d)[A-Za-z0-9_-]{20,}$/;

/** Whether a URL carries a credential: a password, a query parameter named like one, or a key in its path. */
export function urlCarriesCredential(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.password !== '') return true;
  if ([...url.searchParams.keys()].some((key) => CREDENTIAL_PARAMETER.test(key))) return true;
  return url.pathname.split('/').some((segment) => KEY_SEGMENT.test(segment));
}

/**
 * Says on stderr, where usage errors go, that a flag exposed a credential to every local user; the value is not
 * repeated. The command still runs: refusing would break a deployment that works.
 */
export function warnIfCredentialInFlag(flag: string, text: string, variable: string, stderr: Writable): void {
  if (!urlCarriesCredential(text)) return;
  stderr.write(
    `lnswap: warning: --${flag} carries a credential, which any local user can read in the process list; ` +
      `pass it in ${variable} or ${variable}_FILE instead\n`,
  );
}

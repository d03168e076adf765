import { userInfo } from 'node:os';

export interface PostgresTarget {
  /** What pg is given: the URL without lnswap's own `schema` parameter, always naming a user. */
  readonly connectionString: string;
  /** Schema every pooled connection works in; absent means the server's default search_path. */
  readonly schema?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Splits lnswap's `schema=NAME` parameter off a PostgreSQL URL. A URL without a user name gets the one libpq
 * would use, because pg alone falls back to $USER and fails where that variable is not set.
 */
export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('Invalid PostgreSQL URL: expected postgres://[user[:password]@]host[:port]/database');
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid schema name "${schema}" in PostgreSQL URL: use letters, digits and underscores`);
  }
  if (parsed.username === '') {
    parsed.username = encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username);
  }
  return { connectionString: parsed.toString(), ...(schema === undefined ? {} : { schema }) };
}

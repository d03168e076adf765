/** What a node's HTTP API answered when it was not a success: the status and the body, for the log. */
export class NodeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}`);
    this.name = 'NodeHttpError';
  }
}

/** A node that does not answer within this long is treated as down; the watcher retries. */
export const NODE_TIMEOUT_MS = 15_000;

/**
 * A URL as the operator gave it, with any user and password taken out: fetch refuses URLs that carry
 * credentials, and a URL that is logged must not show them.
 */
export function splitCredentials(url: string): { url: string; user?: string; password?: string } {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    ...(user === '' ? {} : { user }),
    ...(password === '' ? {} : { password }),
  };
}

/**
 * A node URL as it may appear in a log line or an error: scheme, host and port only. Hosted nodes put their
 * API key in the path or the query (https://mainnet.infura.io/v3/KEY) and self-hosted ones their RPC
 * password in the user part, so none of these is ever shown.
 */
export function nodeUrlForLog(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}`;
  } catch {
    return '(not a URL)';
  }
}

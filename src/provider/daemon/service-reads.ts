/** Answers larger than this are not read: an order's JSON is well under a kilobyte. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * GETs a path of the service's HTTP read API within a time bound: the parsed JSON, or 'not-found'
 * for a 404 (the order does not exist, or not yet). Anything else throws, to be tried again.
 */
export async function readServiceJson(
  service: { serviceUrl: string; readTimeoutMs: number },
  path: string,
): Promise<unknown> {
  const response = await fetch(`${service.serviceUrl}${path}`, {
    signal: AbortSignal.timeout(service.readTimeoutMs),
    redirect: 'error',
  });
  if (response.status === 404) {
    await response.body?.cancel();
    return 'not-found';
  }
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered HTTP ${response.status}`);
  if (text.length > MAX_ANSWER_BYTES) throw new Error(`GET ${path} answered more than ${MAX_ANSWER_BYTES} bytes`);
  return JSON.parse(text) as unknown;
}

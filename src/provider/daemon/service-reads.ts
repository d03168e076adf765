import { callNode, refusedCall } from '../../chains/node-http.js';

/** Answers larger than this are not read: an order's JSON is well under a kilobyte. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * GETs a path of the service's HTTP read API within a time and size bound (`callNode`): the parsed JSON, or
 * 'not-found' for a 404 (the order does not exist, or not yet). Anything else throws, to be tried again.
 */
export async function readServiceJson(
  service: { serviceUrl: string; readTimeoutMs: number },
  path: string,
): Promise<unknown> {
  const url = `${service.serviceUrl}${path}`;
  const what = `GET ${path}`;
  const answer = await callNode(url, {}, { timeoutMs: service.readTimeoutMs, maxBytes: MAX_ANSWER_BYTES }, what);
  if (answer.status === 404) return 'not-found';
  if (answer.status !== 200) throw refusedCall(url, what, answer);
  return JSON.parse(answer.body) as unknown;
}

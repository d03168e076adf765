import { custom, http, HttpRequestError, ResponseBodyTooLargeError, TimeoutError, type Transport } from 'viem';
import { nodeUrlForLog } from '../../domain/node-url.js';
import { NodeCallFailed } from '../node-faults.js';
import { causeOf, MAX_ANSWER_BYTES, NODE_TIMEOUT_MS, splitCredentials } from '../node-http.js';
import { resultFault } from './json-rpc-results.js';

export interface NodeTransportLimits {
  /** Milliseconds one JSON-RPC call may take, the whole answer read. */
  readonly timeoutMs?: number;
  /** Largest answer read, in bytes: reading stops at the first byte beyond it. */
  readonly maxBytes?: number;
}

/**
 * viem's HTTP transport to an Ethereum node, bounded in time and size, that never shows the node's URL beyond
 * its scheme, host and port. viem puts its URL into every error message; hosted nodes carry their API key in
 * the path (https://mainnet.infura.io/v3/KEY), so viem is given only the host and the request goes to the
 * full URL underneath. A node that times out, answers too much, fails at the HTTP level, answers something
 * that is not JSON or a result not of the method's form (`resultFault`) fails the call with a NodeCallFailed
 * (viem wraps it: `nodeCallFailureIn` finds it); JSON-RPC errors stay viem's (their codes matter).
 */
export function boundedNodeTransport(rpcUrl: string, limits: NodeTransportLimits = {}): Transport {
  const node = nodeUrlForLog(rpcUrl);
  const { url, user, password } = splitCredentials(rpcUrl);
  const authorization =
    user === undefined && password === undefined
      ? undefined
      : `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}`;
  const timeoutMs = limits.timeoutMs ?? NODE_TIMEOUT_MS;
  const inner = http(node, {
    timeout: timeoutMs,
    maxResponseBodySize: limits.maxBytes ?? MAX_ANSWER_BYTES,
    retryCount: 0,
    fetchFn: (_shown, init) =>
      fetch(url, {
        ...init,
        redirect: 'error',
        headers: {
          ...(init?.headers as Record<string, string>),
          ...(authorization === undefined ? {} : { authorization }),
        },
      }),
  })({ retryCount: 0 });
  const request = async (args: { method: string; params?: unknown }): Promise<unknown> => {
    const result = await inner.request(args).catch((error: unknown) => {
      throw nodeFailure(error, node, `ethereum ${args.method}`, timeoutMs);
    });
    const fault = resultFault(args.method, result);
    if (fault !== undefined) throw new NodeCallFailed('badAnswer', node, `ethereum ${args.method}`, fault);
    return result;
  };
  return custom({ request }, { retryCount: 0 });
}

function nodeFailure(error: unknown, node: string, what: string, timeoutMs: number): unknown {
  if (error instanceof TimeoutError)
    return new NodeCallFailed('timeout', node, what, `no answer within ${timeoutMs} ms`);
  if (error instanceof ResponseBodyTooLargeError) return new NodeCallFailed('tooLarge', node, what, error.shortMessage);
  if (error instanceof HttpRequestError) {
    if (error.status !== undefined) return new NodeCallFailed('refused', node, what, `HTTP ${error.status}`);
    if (error.cause instanceof SyntaxError) return new NodeCallFailed('badAnswer', node, what, 'not JSON');
    return new NodeCallFailed('unreachable', node, what, causeOf(error.cause));
  }
  return error;
}

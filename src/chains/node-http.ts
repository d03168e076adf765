import { nodeUrlForLog } from '../domain/node-url.js';
import { NodeCallFailed } from './node-faults.js';

/** A node that does not answer within this long is treated as down; the watcher retries on its next poll. */
export const NODE_TIMEOUT_MS = 15_000;

/**
 * Largest answer read from a node, in bytes. The largest honest answers are a whole Bitcoin block as hex
 * (4,000,000 bytes of block, 8,000,000 hex digits), a page of an address's history and an Ethereum log query
 * over a range; reading stops at the first byte beyond this, so a node answering without end costs at most this
 * much memory per call (and the watcher makes one call at a time).
 */
export const MAX_ANSWER_BYTES = 12 * 1024 * 1024;

/** How much of an error answer goes into the log. */
const LOGGED_BODY_CHARS = 200;

export interface NodeCallLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

export const DEFAULT_NODE_CALL_LIMITS: NodeCallLimits = { timeoutMs: NODE_TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES };

export interface NodeAnswer {
  readonly status: number;
  readonly body: string;
  /** The body as sent: Esplora's raw blocks are binary. */
  readonly bytes: Buffer;
}

/**
 * One HTTP call to a node, bounded in time (connecting, the headers and the whole body) and in size. Any
 * failure is a NodeCallFailed that names the node by scheme, host and port only.
 */
export async function callNode(
  url: string,
  init: RequestInit,
  limits: NodeCallLimits,
  what: string,
): Promise<NodeAnswer> {
  const node = nodeUrlForLog(url);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  // fetch refuses a URL with a user and password in it: they go in the Authorization header instead.
  const { url: bare, user, password } = splitCredentials(url);
  const headers = new Headers(init.headers);
  if ((user !== undefined || password !== undefined) && !headers.has('authorization')) {
    headers.set('authorization', `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}`);
  }
  try {
    const response = await fetch(bare, { ...init, headers, signal, redirect: 'error' });
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > limits.maxBytes) {
      await response.body?.cancel();
      throw tooLarge(node, what, limits.maxBytes);
    }
    const bytes = await readCapped(response, limits.maxBytes, () => tooLarge(node, what, limits.maxBytes));
    return { status: response.status, body: bytes.toString('utf8'), bytes };
  } catch (error) {
    if (error instanceof NodeCallFailed) throw error;
    if (signal.aborted) throw new NodeCallFailed('timeout', node, what, `no answer within ${limits.timeoutMs} ms`);
    throw new NodeCallFailed('unreachable', node, what, causeOf(error));
  }
}

/** The failure for an answer with an unexpected HTTP status, with the start of its body for the log. */
export function refusedCall(url: string, what: string, answer: NodeAnswer): NodeCallFailed {
  const excerpt = answer.body.slice(0, LOGGED_BODY_CHARS);
  return new NodeCallFailed('refused', nodeUrlForLog(url), what, `HTTP ${answer.status} ${JSON.stringify(excerpt)}`);
}

/** The failure for an answer that no honest node gives. */
export function badAnswer(url: string, what: string, detail: string): NodeCallFailed {
  return new NodeCallFailed('badAnswer', nodeUrlForLog(url), what, detail);
}

function tooLarge(node: string, what: string, maxBytes: number): NodeCallFailed {
  return new NodeCallFailed('tooLarge', node, what, `answer larger than ${maxBytes} bytes`);
}

async function readCapped(response: Response, maxBytes: number, overflow: () => Error): Promise<Buffer> {
  if (response.body === null) return Buffer.alloc(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw overflow();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * The system's reason (ECONNREFUSED, ENOTFOUND...), which fetch hides in the cause; else the message with any
 * URL in it taken out, since fetch's messages quote the URL whole.
 */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  const message =
    typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return message.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, '(the URL)');
}

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

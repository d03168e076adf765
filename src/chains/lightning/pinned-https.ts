import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createSecureContext, type ConnectionOptions, type PeerCertificate, type SecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { LightningNodeError } from './lightning-backend.js';

/**
 * Bounds of a call to a Lightning node unless configured: the answers a provider reads are a few kilobytes, and a
 * payment with many HTLC attempts stays far below the cap.
 */
export const LIGHTNING_CALL_LIMITS = { timeoutMs: 15_000, maxResponseBytes: 4 * 1024 * 1024 } as const;

/**
 * A Lightning node's REST endpoint. The node's TLS certificate is pinned, whatever host name or address
 * it is reached by (nodes make certificates naming only the hosts they know of): the connection is
 * accepted when the node presents exactly the pinned certificate (LND's self-signed `tls.cert`), or one
 * the pinned certificate, a CA, signed (clnrest's `server.pem`, signed by the node's own `ca.pem`).
 */
export interface PinnedEndpoint {
  /** `https://host:port`, no path, no credentials. */
  readonly baseUrl: string;
  readonly certificatePem: string;
  /** The credential header (macaroon, rune): sent, never logged or put in an error. */
  readonly headers: Readonly<Record<string, string>>;
  /** Where the pinned certificate and the credential were read from, for errors: file names, never contents. */
  readonly sources: EndpointSources;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/** What errors name the pinned certificate and the credential by: "the macaroon in /path/admin.macaroon". */
export interface EndpointSources {
  certificate: string;
  credential: string;
}

/** The node refused the credential: the error names the file it was read from, never its content. */
export function credentialRefused(endpoint: PinnedEndpoint, what: string): LightningNodeError {
  return new LightningNodeError('unauthorized', what, `the node refused ${endpoint.sources.credential}`);
}

export interface NodeAnswer {
  status: number;
  body: unknown;
}

interface CallOptions {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** What the call is, for errors: the endpoint's name, never its URL or headers. */
  what: string;
}

/** One JSON document answer. Throws LightningNodeError on transport faults, never with a secret in it. */
export async function callJson(endpoint: PinnedEndpoint, options: CallOptions): Promise<NodeAnswer> {
  let text = '';
  const status = await stream(endpoint, options, (chunk) => {
    text += chunk;
    return false;
  });
  return { status, body: parseJson(text, options.what) };
}

/**
 * A streaming answer of one JSON document per line (grpc-gateway's server streams). `onValue`
 * returns true once it has what it waited for; the connection is then closed. Returns the status,
 * and whether the call stopped because `onValue` said so (rather than the node ending the stream).
 */
export async function callJsonLines(
  endpoint: PinnedEndpoint,
  options: CallOptions,
  onValue: (value: unknown) => boolean,
): Promise<{ status: number; stoppedByReader: boolean; rest: string }> {
  let pending = '';
  let stoppedByReader = false;
  const status = await stream(endpoint, options, (chunk) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '' && onValue(parseJson(line, options.what))) {
        stoppedByReader = true;
        return true;
      }
    }
    return false;
  });
  return { status, stoppedByReader, rest: pending.trim() };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LightningNodeError('bad-answer', what, 'not JSON');
  }
}

/** The pinned certificate, parsed, and the TLS context that trusts only it. */
interface PinnedTrust {
  pinned: X509Certificate;
  secureContext: SecureContext;
}

const trusts = new WeakMap<PinnedEndpoint, PinnedTrust>();

/**
 * Built once per endpoint (whose fields never change), not per call: a daemon calls its node every few hundred
 * milliseconds, and parsing the certificate and building a TLS context are most of a call's CPU.
 */
function trustOf(endpoint: PinnedEndpoint): PinnedTrust {
  const known = trusts.get(endpoint);
  if (known !== undefined) return known;
  const trust = {
    pinned: new X509Certificate(endpoint.certificatePem),
    // The pinned certificate is the only trust anchor: OpenSSL verifies the chain (signatures, dates, CA flags) up
    // to it, even when it is the server's own certificate and not self-signed.
    secureContext: createSecureContext({ ca: endpoint.certificatePem, allowPartialTrustChain: true }),
  };
  trusts.set(endpoint, trust);
  return trust;
}

/** Runs the request; `onChunk` returning true ends it early. Resolves with the HTTP status. */
function stream(endpoint: PinnedEndpoint, options: CallOptions, onChunk: (chunk: string) => boolean): Promise<number> {
  const { pinned, secureContext } = trustOf(endpoint);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { status: number } | { error: LightningNodeError }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.status);
    };
    // `secureContext` reaches tls.connect, though @types/node leaves it out of https' request options.
    const requestOptions: RequestOptions & Pick<ConnectionOptions, 'secureContext'> = {
      method: options.method,
      headers: {
        ...endpoint.headers,
        accept: 'application/json',
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      secureContext,
      // Only the host name check is replaced; the pinning is checked again here, not left to the chain alone.
      checkServerIdentity: (_host: string, certificate: PeerCertificate) =>
        isPinnedOrSignedByIt(certificate, pinned) ? undefined : new NotThePinnedCertificate(),
      agent: false,
    };
    const req = request(new URL(options.path, endpoint.baseUrl), requestOptions);
    const timer = setTimeout(
      () =>
        finish({
          error: new LightningNodeError('timeout', options.what, `no full answer within ${endpoint.timeoutMs} ms`),
        }),
      endpoint.timeoutMs,
    );
    req.on('error', (error) => finish({ error: transportFault(error, endpoint, options.what) }));
    req.on('response', (response: IncomingMessage) => {
      let received = 0;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        received += Buffer.byteLength(chunk);
        if (received > endpoint.maxResponseBytes) {
          finish({
            error: new LightningNodeError('too-large', options.what, `more than ${endpoint.maxResponseBytes} bytes`),
          });
          return;
        }
        try {
          if (onChunk(chunk)) finish({ status: response.statusCode ?? 0 });
        } catch (error) {
          finish({
            error: error instanceof LightningNodeError ? error : new LightningNodeError('bad-answer', options.what),
          });
        }
      });
      response.on('end', () => finish({ status: response.statusCode ?? 0 }));
      response.on('error', (error) => finish({ error: transportFault(error, endpoint, options.what) }));
    });
    req.end(payload);
  });
}

/** The certificate the node presented passed OpenSSL's checks but is neither the pinned one nor signed by it. */
class NotThePinnedCertificate extends Error {
  constructor() {
    super('not the pinned certificate');
    this.name = 'NotThePinnedCertificate';
  }
}

/** OpenSSL's verification failures (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...): another certificate. */
const CERTIFICATE_CODES = /CERT|SELF_SIGNED|ISSUER|LEAF_SIGNATURE|INVALID_CA/;

/** A request that failed before a full answer, named by its cause: the fix differs for each. */
function transportFault(error: Error, endpoint: PinnedEndpoint, what: string): LightningNodeError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (error instanceof NotThePinnedCertificate || CERTIFICATE_CODES.test(code)) {
    const cause = code === '' ? '' : `: ${code}`;
    return new LightningNodeError(
      'certificate-mismatch',
      what,
      `the node's TLS certificate is not ${endpoint.sources.certificate}${cause}`,
    );
  }
  if (code === 'ECONNREFUSED')
    return new LightningNodeError('connection-refused', what, "nothing listens at the node's address");
  if (code === 'ETIMEDOUT') return new LightningNodeError('timeout', what, code);
  return new LightningNodeError('unreachable', what, code === '' ? error.name : code);
}

function isPinnedOrSignedByIt(presented: PeerCertificate, pinned: X509Certificate): boolean {
  if (presented.raw.equals(pinned.raw)) return true;
  if (!pinned.ca) return false;
  const certificate = new X509Certificate(presented.raw);
  return certificate.checkIssued(pinned) && certificate.verify(pinned.publicKey);
}

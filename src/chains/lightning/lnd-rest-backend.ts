import { decodeInvoice } from '../../domain/invoice.js';
import type { Network } from '../../domain/markets.js';
import { amountAt, arrayAt, asRecord, numberAt, stringAt, booleanAt } from './json-fields.js';
import {
  LightningNodeError,
  nodeReport,
  type LightningBackend,
  type LightningNodeInfo,
  type PaymentFailureReason,
  type PaymentLookup,
  type PaymentOutcome,
  type PayRequest,
  type RouteEstimate,
} from './lightning-backend.js';
import {
  LIGHTNING_CALL_LIMITS,
  callJson,
  callJsonLines,
  credentialRefused,
  type NodeAnswer,
  type PinnedEndpoint,
} from './pinned-https.js';

export interface LndRestOptions {
  /** `https://host:port` of LND's REST listener (restlisten, 8080 by default). */
  url: string;
  /** tls.cert as PEM. */
  certificatePem: string;
  /** The macaroon file's bytes as hex, as LND's REST gateway expects it. */
  macaroonHex: string;
  /** The files the certificate and the macaroon were read from, named in errors. */
  certificateFile?: string;
  macaroonFile?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

const LND_NETWORKS: Readonly<Record<string, Network>> = {
  mainnet: 'mainnet',
  testnet: 'testnet',
  regtest: 'simnet',
  simnet: 'simnet',
};

const LND_FAILURE_REASONS: Readonly<Record<string, PaymentFailureReason>> = {
  FAILURE_REASON_TIMEOUT: 'timeout',
  FAILURE_REASON_NO_ROUTE: 'no-route',
  FAILURE_REASON_INSUFFICIENT_BALANCE: 'insufficient-balance',
  FAILURE_REASON_INCORRECT_PAYMENT_DETAILS: 'incorrect-payment-details',
};

/** gRPC status codes LND's REST gateway passes on in error bodies. */
const GRPC_NOT_FOUND = 5;

/**
 * LND through its REST gateway (grpc-gateway): unary calls answer one JSON document, errors as
 * `{code, message}` with an HTTP status; router calls stream one `{"result": Payment}` or
 * `{"error": {...}}` per line.
 */
export class LndRestBackend implements LightningBackend {
  readonly kind = 'lnd';
  private readonly endpoint: PinnedEndpoint;

  constructor(options: LndRestOptions) {
    if (!/^[0-9a-fA-F]+$/.test(options.macaroonHex)) throw new Error('LND macaroon: expected the file as hex');
    this.endpoint = {
      baseUrl: options.url,
      certificatePem: options.certificatePem,
      headers: { 'Grpc-Metadata-macaroon': options.macaroonHex },
      sources: {
        certificate: options.certificateFile === undefined ? 'the pinned one' : `the one in ${options.certificateFile}`,
        credential: options.macaroonFile === undefined ? 'the macaroon' : `the macaroon in ${options.macaroonFile}`,
      },
      timeoutMs: options.timeoutMs ?? LIGHTNING_CALL_LIMITS.timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? LIGHTNING_CALL_LIMITS.maxResponseBytes,
    };
  }

  async getInfo(): Promise<LightningNodeInfo> {
    const info = this.unary(
      await callJson(this.endpoint, { method: 'GET', path: '/v1/getinfo', what: 'lnd getinfo' }),
      'lnd getinfo',
    );
    const chain = asRecord(arrayAt(info, 'chains')[0]);
    const network = LND_NETWORKS[stringAt(chain, 'network') ?? ''];
    const publicKey = stringAt(info, 'identity_pubkey');
    const blockHeight = numberAt(info, 'block_height');
    if (network === undefined || publicKey === undefined || blockHeight === undefined) {
      throw new LightningNodeError('bad-answer', 'lnd getinfo');
    }
    return { publicKey, network, blockHeight, synced: booleanAt(info, 'synced_to_chain') === true };
  }

  async spendableMillisatoshis(): Promise<bigint> {
    const what = 'lnd channel balance';
    const balance = this.unary(
      await callJson(this.endpoint, { method: 'GET', path: '/v1/balance/channels', what }),
      what,
    );
    const local = amountAt(asRecord(balance?.['local_balance']), 'msat');
    if (local === undefined) throw new LightningNodeError('bad-answer', what);
    return local;
  }

  async estimateRoute(payeePublicKey: string, amountMillisatoshis: bigint): Promise<RouteEstimate | undefined> {
    const what = 'lnd query routes';
    const info = await this.getInfo();
    const amountSatoshis = (amountMillisatoshis + 999n) / 1000n;
    const answer = await callJson(this.endpoint, {
      method: 'GET',
      path: `/v1/graph/routes/${encodeURIComponent(payeePublicKey)}/${amountSatoshis}`,
      what,
    });
    const error = errorOf(answer);
    if (error !== undefined && /unable to find a path|no route/i.test(error.message)) return undefined;
    const route = asRecord(arrayAt(this.unary(answer, what), 'routes')[0]);
    if (route === undefined) return undefined;
    const fee = amountAt(route, 'total_fees_msat');
    const timeLock = numberAt(route, 'total_time_lock');
    if (fee === undefined || timeLock === undefined) throw new LightningNodeError('bad-answer', what);
    return { feeMillisatoshis: fee, timeLockDelta: timeLock - info.blockHeight };
  }

  async pay(request: PayRequest): Promise<PaymentOutcome> {
    const what = 'lnd send payment';
    let outcome: PaymentOutcome = { kind: 'pending' };
    let refusal: { code: number; message: string } | undefined;
    try {
      const answer = await callJsonLines(
        this.endpoint,
        {
          method: 'POST',
          path: '/v2/router/send',
          body: {
            payment_request: request.invoice,
            fee_limit_msat: request.feeLimitMillisatoshis.toString(),
            timeout_seconds: request.timeoutSeconds,
            no_inflight_updates: true,
          },
          what,
        },
        (value) => {
          const line = asRecord(value);
          refusal = streamError(line);
          if (refusal !== undefined) return true;
          outcome = paymentOutcome(asRecord(line?.['result']));
          return outcome.kind !== 'pending';
        },
      );
      if (refusal === undefined && answer.status !== 200)
        refusal = errorOf({ status: answer.status, body: safeParse(answer.rest) });
    } catch (error) {
      if (error instanceof LightningNodeError && error.fault !== 'bad-answer') return { kind: 'pending' };
      throw error;
    }
    if (refusal === undefined) return outcome;
    return this.refusedPayment(refusal, request.invoice);
  }

  async lookupPayment(paymentHash: string): Promise<PaymentLookup> {
    const what = 'lnd track payment';
    let found: PaymentLookup | undefined;
    const answer = await callJsonLines(
      this.endpoint,
      { method: 'GET', path: `/v2/router/track/${Buffer.from(paymentHash, 'hex').toString('base64url')}`, what },
      (value) => {
        const line = asRecord(value);
        const error = streamError(line);
        if (error !== undefined) {
          found = this.notFoundOrThrow(error, what);
          return true;
        }
        found = paymentOutcome(asRecord(line?.['result']));
        return true;
      },
    );
    if (found !== undefined) return found;
    const error = errorOf({ status: answer.status, body: safeParse(answer.rest) });
    if (error !== undefined) return this.notFoundOrThrow(error, what);
    throw new LightningNodeError('bad-answer', what);
  }

  /** LND refuses a second payment to a hash it has paid or is paying; the first one's outcome is the answer. */
  private async refusedPayment(refusal: { code: number; message: string }, invoice: string): Promise<PaymentOutcome> {
    if (isMacaroonRefusal(refusal.message)) throw credentialRefused(this.endpoint, 'lnd send payment');
    if (/already paid|in transition|already exists/i.test(refusal.message)) {
      const paymentHash = decodeInvoice(invoice)?.paymentHash;
      const lookup = paymentHash === undefined ? { kind: 'pending' as const } : await this.lookupPayment(paymentHash);
      return lookup.kind === 'unknown' ? { kind: 'pending' } : lookup;
    }
    if (/expired/i.test(refusal.message)) return { kind: 'failed', reason: 'invoice-expired' };
    return { kind: 'failed', reason: 'incorrect-payment-details' };
  }

  private unary(answer: NodeAnswer, what: string): Record<string, unknown> | undefined {
    const error = errorOf(answer);
    if (error !== undefined) {
      if (isMacaroonRefusal(error.message) || answer.status === 401 || answer.status === 403) {
        throw credentialRefused(this.endpoint, what);
      }
      throw new LightningNodeError('refused', what);
    }
    return asRecord(answer.body);
  }

  private notFoundOrThrow(error: { code: number; message: string }, what: string): PaymentLookup {
    if (error.code === GRPC_NOT_FOUND || /isn't initiated|not found/i.test(error.message)) return { kind: 'unknown' };
    if (isMacaroonRefusal(error.message)) throw credentialRefused(this.endpoint, what);
    throw new LightningNodeError('refused', what);
  }
}

/** A `Payment` of LND's router; no payment at all (a line without one) is no news: still pending. */
function paymentOutcome(payment: Record<string, unknown> | undefined): PaymentOutcome {
  if (payment === undefined) return { kind: 'pending' };
  const status = stringAt(payment, 'status');
  switch (status) {
    case 'SUCCEEDED': {
      const preimage = stringAt(payment, 'payment_preimage') ?? '';
      if (!/^[0-9a-f]{64}$/.test(preimage)) {
        return { kind: 'suspect', reason: 'preimage-mismatch', nodeReport: nodeReport(`preimage ${preimage}`) };
      }
      const amount = amountAt(payment, 'value_msat');
      return {
        kind: 'succeeded',
        preimage,
        feeMillisatoshis: amountAt(payment, 'fee_msat') ?? 0n,
        ...(amount === undefined ? {} : { amountMillisatoshis: amount }),
      };
    }
    case 'FAILED':
      return { kind: 'failed', reason: LND_FAILURE_REASONS[stringAt(payment, 'failure_reason') ?? ''] ?? 'error' };
    case 'IN_FLIGHT':
    case 'INITIATED':
      return { kind: 'pending' };
    default:
      return { kind: 'suspect', reason: 'unknown-status', nodeReport: nodeReport(`status ${String(status)}`) };
  }
}

/** A streamed `{"error": {...}}` line, or a bare `{code, message}` the gateway sends before any result. */
function streamError(line: Record<string, unknown> | undefined): { code: number; message: string } | undefined {
  const error =
    asRecord(line?.['error']) ?? (line !== undefined && !('result' in line) && 'message' in line ? line : undefined);
  if (error === undefined) return undefined;
  return { code: numberAt(error, 'code') ?? 0, message: stringAt(error, 'message') ?? '' };
}

/** A unary error body `{code, message}`, or a streamed `{"error": {...}}`, whatever the status. */
function errorOf(answer: NodeAnswer): { code: number; message: string } | undefined {
  const body = asRecord(answer.body);
  const streamed = streamError(body);
  if (streamed !== undefined) return streamed;
  if (answer.status >= 200 && answer.status < 300) return undefined;
  return { code: numberAt(body, 'code') ?? 0, message: stringAt(body, 'message') ?? `HTTP ${answer.status}` };
}

/** LND answers a missing or wrong macaroon with gRPC code 2 and one of these messages. */
function isMacaroonRefusal(message: string): boolean {
  return /macaroon|verification failed|permission denied/i.test(message);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import { decodeInvoice } from '../../domain/invoice.js';
import type { Network } from '../../domain/markets.js';
import { amountAt, arrayAt, asRecord, numberAt, stringAt } from './json-fields.js';
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
  credentialRefused,
  type NodeAnswer,
  type PinnedEndpoint,
} from './pinned-https.js';

export interface ClnRestOptions {
  /** `https://host:port` of the clnrest plugin (clnrest-port). */
  url: string;
  /** clnrest's certificate (clnrest-certs directory, client.pem's issuer or the server's own) as PEM. */
  certificatePem: string;
  /** A rune made with `lightning-cli createrune`, restricted to what the provider calls. */
  rune: string;
  /** The files the certificate and the rune were read from, named in errors. */
  certificateFile?: string;
  runeFile?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

const CLN_NETWORKS: Readonly<Record<string, Network>> = {
  bitcoin: 'mainnet',
  testnet: 'testnet',
  regtest: 'simnet',
};

/** Core Lightning's JSON-RPC error codes for `pay` (common/jsonrpc_errors.h). */
const PAY_IN_PROGRESS = 200;
const PAY_DESTINATION_PERM_FAIL = 203;
const PAY_ROUTE_NOT_FOUND = 205;
const PAY_ROUTE_TOO_EXPENSIVE = 206;
const PAY_INVOICE_EXPIRED = 207;
const PAY_STOPPED_RETRYING = 210;

/** How many extra blocks of risk `getroute` weighs per millisatoshi; 1 is what `pay` uses for estimates. */
const GETROUTE_RISK_FACTOR = 1;

/**
 * Core Lightning through the clnrest plugin: every method is `POST /v1/<method>` with the JSON-RPC
 * parameters as the body and the rune in the `Rune` header; an RPC error comes back as HTTP 500 with
 * `{code, message}`, a refused rune as 401 or 403.
 */
export class ClnRestBackend implements LightningBackend {
  readonly kind = 'cln';
  private readonly endpoint: PinnedEndpoint;

  constructor(options: ClnRestOptions) {
    this.endpoint = {
      baseUrl: options.url,
      certificatePem: options.certificatePem,
      headers: { Rune: options.rune },
      sources: {
        certificate: options.certificateFile === undefined ? 'the pinned one' : `the one in ${options.certificateFile}`,
        credential: options.runeFile === undefined ? 'the rune' : `the rune in ${options.runeFile}`,
      },
      timeoutMs: options.timeoutMs ?? LIGHTNING_CALL_LIMITS.timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? LIGHTNING_CALL_LIMITS.maxResponseBytes,
    };
  }

  async getInfo(): Promise<LightningNodeInfo> {
    const info = this.success(await this.rpc('getinfo', {}), 'getinfo');
    const network = CLN_NETWORKS[stringAt(info, 'network') ?? ''];
    const publicKey = stringAt(info, 'id');
    const blockHeight = numberAt(info, 'blockheight');
    if (network === undefined || publicKey === undefined || blockHeight === undefined) {
      throw new LightningNodeError('bad-answer', 'cln getinfo');
    }
    // lightningd sets these warnings while it or bitcoind is still catching up.
    const synced = info?.['warning_bitcoind_sync'] === undefined && info?.['warning_lightningd_sync'] === undefined;
    return { publicKey, network, blockHeight, synced };
  }

  /** What active channels hold on our side; the channel reserve makes the real figure a little lower. */
  async spendableMillisatoshis(): Promise<bigint> {
    const funds = this.success(await this.rpc('listfunds', {}), 'listfunds');
    let total = 0n;
    for (const entry of arrayAt(funds, 'channels')) {
      const channel = asRecord(entry);
      if (stringAt(channel, 'state') !== 'CHANNELD_NORMAL' || channel?.['connected'] !== true) continue;
      total += amountAt(channel, 'our_amount_msat') ?? 0n;
    }
    return total;
  }

  async estimateRoute(payeePublicKey: string, amountMillisatoshis: bigint): Promise<RouteEstimate | undefined> {
    const answer = await this.rpc('getroute', {
      id: payeePublicKey,
      amount_msat: Number(amountMillisatoshis),
      riskfactor: GETROUTE_RISK_FACTOR,
    });
    if (rpcError(answer)?.code === PAY_ROUTE_NOT_FOUND) return undefined;
    const firstHop = asRecord(arrayAt(this.success(answer, 'getroute'), 'route')[0]);
    if (firstHop === undefined) return undefined;
    const sent = amountAt(firstHop, 'amount_msat');
    const delay = numberAt(firstHop, 'delay');
    if (sent === undefined || delay === undefined || sent < amountMillisatoshis) {
      throw new LightningNodeError('bad-answer', 'cln getroute');
    }
    return { feeMillisatoshis: sent - amountMillisatoshis, timeLockDelta: delay };
  }

  async pay(request: PayRequest): Promise<PaymentOutcome> {
    let answer: NodeAnswer;
    try {
      answer = await this.rpc('pay', {
        bolt11: request.invoice,
        maxfee: Number(request.feeLimitMillisatoshis),
        retry_for: request.timeoutSeconds,
      });
    } catch (error) {
      // `pay` blocks while an HTLC is stuck; a call that ends without an answer leaves the payment to be looked up.
      if (error instanceof LightningNodeError && error.fault !== 'bad-answer') return { kind: 'pending' };
      throw error;
    }
    const error = rpcError(answer);
    if (error === undefined) return payOutcome(this.success(answer, 'pay'));
    this.throwIfUnauthorized(answer, 'pay');
    switch (error.code) {
      case PAY_IN_PROGRESS:
        return { kind: 'pending' };
      case PAY_DESTINATION_PERM_FAIL:
        return { kind: 'failed', reason: 'incorrect-payment-details' };
      case PAY_ROUTE_NOT_FOUND:
        return {
          kind: 'failed',
          reason: /spendable|insufficient/i.test(error.message) ? 'insufficient-balance' : 'no-route',
        };
      case PAY_ROUTE_TOO_EXPENSIVE:
        return { kind: 'failed', reason: 'fee-limit-exceeded' };
      case PAY_INVOICE_EXPIRED:
        return { kind: 'failed', reason: 'invoice-expired' };
      case PAY_STOPPED_RETRYING:
        return { kind: 'failed', reason: 'timeout' };
      default:
        // Among them PAY_RHASH_ALREADY_USED (201): money may be out under this hash already.
        return this.lookupAfterError(request.invoice);
    }
  }

  async lookupPayment(paymentHash: string): Promise<PaymentLookup> {
    const pays = arrayAt(this.success(await this.rpc('listpays', { payment_hash: paymentHash }), 'listpays'), 'pays')
      .map(asRecord)
      .filter((pay) => pay !== undefined);
    if (pays.length === 0) return { kind: 'unknown' };
    const complete = pays.find((pay) => stringAt(pay, 'status') === 'complete');
    if (complete !== undefined) return payOutcome(complete);
    const unknown = pays.find((pay) => !KNOWN_PAY_STATUSES.has(stringAt(pay, 'status') ?? ''));
    if (unknown !== undefined) return payOutcome(unknown);
    if (pays.some((pay) => stringAt(pay, 'status') === 'pending')) return { kind: 'pending' };
    return { kind: 'failed', reason: 'error' };
  }

  /**
   * A hash already paid to (PAY_RHASH_ALREADY_USED), or an error `pay` has no code for, may have
   * money out under this hash: what `listpays` says stands.
   */
  private async lookupAfterError(invoice: string): Promise<PaymentOutcome> {
    const paymentHash = decodeInvoice(invoice)?.paymentHash;
    if (paymentHash === undefined) return { kind: 'failed', reason: 'incorrect-payment-details' };
    const lookup = await this.lookupPayment(paymentHash);
    return lookup.kind === 'unknown' ? { kind: 'failed', reason: 'error' } : lookup;
  }

  private rpc(method: string, params: Record<string, unknown>): Promise<NodeAnswer> {
    return callJson(this.endpoint, { method: 'POST', path: `/v1/${method}`, body: params, what: `cln ${method}` });
  }

  private throwIfUnauthorized(answer: NodeAnswer, method: string): void {
    if (answer.status === 401 || answer.status === 403) throw credentialRefused(this.endpoint, `cln ${method}`);
  }

  private success(answer: NodeAnswer, method: string): Record<string, unknown> | undefined {
    this.throwIfUnauthorized(answer, method);
    if (rpcError(answer) !== undefined) throw new LightningNodeError('refused', `cln ${method}`);
    return asRecord(answer.body);
  }
}

/** The statuses `pay` and `listpays` report; any other is a node the backend cannot read. */
const KNOWN_PAY_STATUSES: ReadonlySet<string> = new Set(['complete', 'pending', 'failed']);

/** `pay`'s answer or a `listpays` entry; `amount_msat` is what reached the payee, without the fee. */
function payOutcome(pay: Record<string, unknown> | undefined): PaymentOutcome {
  const status = stringAt(pay, 'status');
  if (status === 'complete') {
    const preimage = stringAt(pay, 'payment_preimage') ?? stringAt(pay, 'preimage') ?? '';
    const amount = amountAt(pay, 'amount_msat');
    const sent = amountAt(pay, 'amount_sent_msat');
    if (!/^[0-9a-f]{64}$/.test(preimage)) {
      return { kind: 'suspect', reason: 'preimage-mismatch', nodeReport: nodeReport(`preimage ${preimage}`) };
    }
    const fee = amount !== undefined && sent !== undefined && sent >= amount ? sent - amount : 0n;
    return {
      kind: 'succeeded',
      preimage,
      feeMillisatoshis: fee,
      ...(amount === undefined ? {} : { amountMillisatoshis: amount }),
    };
  }
  if (status === 'failed') return { kind: 'failed', reason: 'error' satisfies PaymentFailureReason };
  if (status === 'pending') return { kind: 'pending' };
  return { kind: 'suspect', reason: 'unknown-status', nodeReport: nodeReport(`status ${String(status)}`) };
}

function rpcError(answer: NodeAnswer): { code: number; message: string } | undefined {
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const body = asRecord(answer.body);
  const error = asRecord(body?.['error']) ?? body;
  return { code: numberAt(error, 'code') ?? 0, message: stringAt(error, 'message') ?? `HTTP ${answer.status}` };
}

import type { Network } from '../../domain/markets.js';

/** What the provider needs to know about its own Lightning node before it quotes. */
export interface LightningNodeInfo {
  /** 33-byte compressed node key, hex. */
  publicKey: string;
  network: Network;
  blockHeight: number;
  /** False while the node is still catching up with the chain: it should not pay then. */
  synced: boolean;
}

/** Why a payment failed for good: nothing of it is in flight any more, so reporting failure is safe. */
export type PaymentFailureReason =
  | 'no-route'
  | 'insufficient-balance'
  | 'timeout'
  | 'incorrect-payment-details'
  | 'invoice-expired'
  | 'fee-limit-exceeded'
  | 'error';

/**
 * Why the node's word on a payment cannot be trusted: a success whose preimage does not hash to the payment hash
 * (or is no 32-byte value at all), a success for another amount than the invoice's, a status the backend does not
 * know. Money may have gone out: such a payment is neither paid again nor reported failed.
 */
export type SuspectReason = 'preimage-mismatch' | 'amount-mismatch' | 'unknown-status';

/**
 * Where a payment stands. `pending` covers both "in flight" and "the node did not say": in either
 * case the payment must be looked up by its hash, never sent again. A success carries the amount
 * the node says it delivered (without the fee) when the node reports it; `suspect` carries what the
 * node said, shortened, for the operator.
 */
export type PaymentOutcome =
  | { kind: 'succeeded'; preimage: string; feeMillisatoshis: bigint; amountMillisatoshis?: bigint }
  | { kind: 'failed'; reason: PaymentFailureReason }
  | { kind: 'pending' }
  | { kind: 'suspect'; reason: SuspectReason; nodeReport: string };

/** What a node said, bounded for the state file and the log. */
export function nodeReport(words: string): string {
  return words.length <= 200 ? words : `${words.slice(0, 200)}...`;
}

/** What looking a payment up by its hash found: its outcome, or that the node never started one. */
export type PaymentLookup = PaymentOutcome | { kind: 'unknown' };

/** The node's estimate of what paying would cost; `undefined` from the backend when it sees no route. */
export interface RouteEstimate {
  feeMillisatoshis: bigint;
  /** Blocks the route locks the provider's funds for, the payee's final delta included. */
  timeLockDelta: number;
}

export interface PayRequest {
  invoice: string;
  /** The most the provider pays in routing fees. */
  feeLimitMillisatoshis: bigint;
  /** How long the node may keep trying new routes; HTLCs already out may outlive it. */
  timeoutSeconds: number;
}

/** A Lightning node the provider pays with (LND, Core Lightning). */
export interface LightningBackend {
  /** Names the kind of node in logs and errors, never its address or credentials. */
  readonly kind: 'lnd' | 'cln';
  getInfo(): Promise<LightningNodeInfo>;
  /** What the node can send now over its channels, in millisatoshis. */
  spendableMillisatoshis(): Promise<bigint>;
  /** A route to the payee for this amount, or undefined when the node finds none. */
  estimateRoute(payeePublicKey: string, amountMillisatoshis: bigint): Promise<RouteEstimate | undefined>;
  /**
   * Sends the payment and waits for its outcome up to the call's own bound. Throws
   * LightningNodeError when the node could not be asked; the payment may then still have started,
   * so the caller looks it up by hash before anything else.
   */
  pay(request: PayRequest): Promise<PaymentOutcome>;
  lookupPayment(paymentHash: string): Promise<PaymentLookup>;
}

/**
 * Why a call to the node got no answer the backend understands, by cause, for they call for different fixes:
 * - `certificate-mismatch`: the node presented another TLS certificate than the pinned one (a new `tls.cert`,
 *   the wrong file configured, or something else listening at the address);
 * - `unauthorized`: the node refused the macaroon or rune;
 * - `timeout`: no full answer within the call's bound;
 * - `connection-refused`: nothing listens at the address (the node is down, or the port is wrong);
 * - `unreachable`: any other network failure (no route, name not found, connection reset);
 * - `too-large`: an answer above the cap;
 * - `bad-answer`: an answer that is not JSON, or not what the call answers;
 * - `refused`: the node understood the call and answered it with an error.
 */
export type LightningNodeFault =
  | 'certificate-mismatch'
  | 'unauthorized'
  | 'timeout'
  | 'connection-refused'
  | 'unreachable'
  | 'too-large'
  | 'bad-answer'
  | 'refused';

const FAULT_WORDS: Readonly<Record<LightningNodeFault, string>> = {
  'certificate-mismatch': 'certificate mismatch',
  unauthorized: 'authentication refused',
  timeout: 'timed out',
  'connection-refused': 'connection refused',
  unreachable: 'unreachable',
  'too-large': 'answer too large',
  'bad-answer': 'bad answer',
  refused: 'the node refused the call',
};

/**
 * A call to the node that did not get an answer the backend understands: `what` names the call, `detail` the
 * cause (a file name, an error code), never a credential, URL or header.
 */
export class LightningNodeError extends Error {
  constructor(
    readonly fault: LightningNodeFault,
    what: string,
    detail?: string,
  ) {
    super(`${what}: ${FAULT_WORDS[fault]}${detail === undefined ? '' : ` (${detail})`}`);
    this.name = 'LightningNodeError';
  }
}

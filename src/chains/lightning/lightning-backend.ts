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
 * Where a payment stands. `pending` covers both "in flight" and "the node did not say": in either
 * case the payment must be looked up by its hash, never sent again.
 */
export type PaymentOutcome =
  | { kind: 'succeeded'; preimage: string; feeMillisatoshis: bigint }
  | { kind: 'failed'; reason: PaymentFailureReason }
  | { kind: 'pending' };

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

export type LightningNodeFault = 'unauthorized' | 'unreachable' | 'timeout' | 'too-large' | 'malformed' | 'refused';

/** A call to the node that did not get an answer the backend understands. Carries no secret. */
export class LightningNodeError extends Error {
  constructor(
    readonly fault: LightningNodeFault,
    what: string,
  ) {
    super(`${what}: ${fault}`);
    this.name = 'LightningNodeError';
  }
}

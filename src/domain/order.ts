import type { OrderState } from './states.js';
import type { TransitionCause } from './transition-cause.js';

export type TransactionType = 'FUND' | 'REFUND';

/** A record while it is built field by field, its optional fields set only when present. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

export interface OrderTransaction {
  readonly type: TransactionType;
  /** Transaction id on the on-chain network. */
  readonly id: string;
  /**
   * Base units moved into the HTLC (FUND), or returned from one Ethereum slot (REFUND of an order that may have
   * several); absent on a REFUND that returned everything (Bitcoin).
   */
  readonly amount?: bigint;
  /** Output of the HTLC in a Bitcoin FUND transaction; absent on Ethereum. */
  readonly outputIndex?: number;
  /** Absent while the transaction is only seen in the mempool. */
  readonly blockHeight?: number;
}

export interface HtlcTerms {
  /** Hex script; Bitcoin-style markets only. */
  readonly redeemScript?: string;
  readonly refundableAtBlockHeight: number;
}

/** An order as the store keeps it: amounts in base units, times in ms since the epoch. */
export interface OrderRecord {
  /** Lowercase dashed UUID. */
  readonly id: string;
  /** Canonical (upper-case) market name. */
  readonly market: string;
  readonly invoice: string;
  /** SHA-256 of the invoice string as sent, lowercase hex. */
  readonly invoiceHash: string;
  /** From the BOLT11 invoice, lowercase hex. */
  readonly paymentHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly state: OrderState;
  readonly amount: bigint;
  readonly payToAddress: string;
  readonly paymentPreimage?: string;
  readonly refundAddress?: string;
  readonly htlc: HtlcTerms;
  readonly transactions: readonly OrderTransaction[];
  /** The provider whose quote won the auction; absent on orders imported without one. */
  readonly providerId?: string;
  /**
   * Ethereum-style markets: who the swap contract pays on a claim (lowercase), the payout address the
   * operator registered for the winning provider. Only slots naming it count toward the order.
   */
  readonly claimAddress?: string;
}

export interface StateChange {
  readonly state: OrderState;
  readonly at: number;
  /** Absent on rows an import wrote and on rows written before causes were recorded. */
  readonly cause?: TransitionCause;
}

export interface BitcoinChainView {
  readonly blockHeight: number;
  readonly feeTokensPerVirtualByte: number;
}

/** The swap contract versions the service can watch: v2's slots, and v3's, which add cooperative refunds. */
export type SwapContractVersion = 2 | 3;

/** A swap contract the service has quoted on. */
export interface SwapContract {
  /** Lowercase. */
  readonly address: string;
  readonly version: SwapContractVersion;
  /** Ms since the epoch when new quotes began to use it; 0 when it was in use before the history was kept. */
  readonly since: number;
}

export interface EthereumChainView {
  readonly blockHeight: number;
  /** The contract new quotes use. */
  readonly swapContractAddress: string;
  /**
   * Every swap contract the service has used, oldest first. The stores always answer it, the current contract
   * among them; a view written without it (an import, a test) keeps the stored history and adds the current
   * contract to it as version 2 when it is missing.
   */
  readonly contracts?: readonly SwapContract[];
}

/** The service's current view of each chain; Bitcoin-style markets use `bitcoin`, Ethereum-style `ethereum`. */
export interface ChainViews {
  readonly bitcoin?: BitcoinChainView;
  readonly ethereum?: EthereumChainView;
}

/** A provider's payment requirements for one market, in base units and seconds. */
export interface PayReq {
  readonly minExpirationSeconds: bigint;
  readonly minBaseUnits: bigint;
  readonly maxBaseUnits: bigint;
}

export interface ProviderRecord {
  readonly id: string;
  readonly active: boolean;
  /** Keyed by canonical market name, in the order the provider gave them. */
  readonly markets: Readonly<Record<string, PayReq>>;
}

/** Operator-issued provider credentials; only a slow hash of the secret is kept. */
export interface ProviderCredential {
  readonly name: string;
  readonly apiKey: string;
  readonly secretHash: string;
  readonly createdAt: number;
  readonly revokedAt?: number;
  /**
   * Lowercase Ethereum address the swap contract pays when this provider's order is claimed; set by the operator.
   * Without one the provider cannot win Ethereum markets.
   */
  readonly ethereumPayoutAddress?: string;
}

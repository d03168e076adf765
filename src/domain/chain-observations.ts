/** What a chain says about an order, network-neutral: the watcher stores these and derives orders from them. */

/** A block on the chain; `hash` is lowercase hex as the network spells it (0x-prefixed on Ethereum). */
export interface BlockRef {
  readonly height: number;
  readonly hash: string;
  /**
   * When the block was made, in milliseconds since the epoch, where the backend reads it (Ethereum: the block's
   * timestamp): a funding counts toward its order's fund window by it (chain-derivation.ts).
   */
  readonly timestamp?: number;
}

export interface ObservationBase {
  readonly orderId: string;
  readonly txId: string;
  /**
   * Position of the observation in its block, unique within the block: the log index on Ethereum; on
   * Bitcoin the transaction's index in the block times 2^16 plus the output (funding) or input (spend) index.
   * Together with the block it identifies the observation, so a replayed range is never counted twice.
   */
  readonly position: number;
  readonly block: BlockRef;
}

/** Money locked for an order: one `fund` call on Ethereum, one output paying the HTLC on Bitcoin. */
export interface FundingObservation extends ObservationBase {
  readonly kind: 'funding';
  /** Base units added by this funding. */
  readonly amount: bigint;
  /** Bitcoin: the HTLC output of the funding transaction. */
  readonly outputIndex?: number;
  /** The height after which the funds can be refunded, as the chain says it (the contract's event). */
  readonly refundHeight?: number;
  /** Ethereum: the account whose slot this funding fills (lowercase 0x address); the slot is (order, funder). */
  readonly funder?: string;
  /** Ethereum: the slot's terms, fixed by its first funding: who a claim pays (lowercase 0x address), */
  readonly claimer?: string;
  /** the asset (an ERC-20 contract, or the zero address for ether; lowercase 0x address), */
  readonly token?: string;
  /** and the payment hash whose preimage claims it (lowercase hex, 64 digits, no 0x). */
  readonly paymentHash?: string;
}

/** The provider took the funds with the preimage (the contract's event, or the spend's witness on Bitcoin). */
export interface ClaimObservation extends ObservationBase {
  readonly kind: 'claim';
  /** Lowercase hex, 64 digits. */
  readonly preimage: string;
  readonly amount?: bigint;
  /** Ethereum: the funder of the claimed slot (lowercase 0x address). */
  readonly funder?: string;
}

/** The funds went back to the funder: after the timelock, or by the contract owner (`byAdmin`). */
export interface RefundObservation extends ObservationBase {
  readonly kind: 'refund';
  readonly amount?: bigint;
  readonly byAdmin?: boolean;
  /** Ethereum: the funder of the refunded slot, whom the refund paid (lowercase 0x address). */
  readonly funder?: string;
}

export type ChainObservation = FundingObservation | ClaimObservation | RefundObservation;

/**
 * Where an observation of a transaction in the node's mempool is placed: above every block, so it has no
 * confirmations, under a hash no block has. Such observations are never stored: the mempool is the node's
 * current word, read afresh on every pass (docs/chain-watcher.md).
 */
export const MEMPOOL_BLOCK: BlockRef = { height: Number.MAX_SAFE_INTEGER, hash: 'mempool' };

export function inMempool(observation: ObservationBase): boolean {
  return observation.block.hash === MEMPOOL_BLOCK.hash;
}

/** How many blocks confirm something in `height` when the tip is at `tipHeight`: 1 in the tip itself. */
export function confirmationsAt(height: number, tipHeight: number): number {
  return height > tipHeight ? 0 : tipHeight - height + 1;
}

import type { BlockRef, ChainObservation } from '../domain/chain-observations.js';
import type { ChainKind, Network } from '../domain/markets.js';

export type {
  BlockRef,
  ChainObservation,
  ClaimObservation,
  FundingObservation,
  RefundObservation,
} from '../domain/chain-observations.js';
export { confirmationsAt, inMempool, MEMPOOL_BLOCK } from '../domain/chain-observations.js';

/**
 * What the order watcher needs of an on-chain network, whatever the network: its identity, its tip,
 * the hash of any block (to notice reorgs), the observations that concern a set of orders in a range of
 * blocks, and broadcasting. One implementation per network under src/chains/<network>/.
 *
 * The watcher, not the backend, keeps the cursor (the last block it processed, height and hash) in the
 * store, in the same transaction as the moves that block caused, so a backend holds no state that a
 * restart could lose: every method answers from the node alone (the mempool reader caches, below).
 */
export interface ChainBackend {
  readonly chain: ChainKind;
  /** Which chain the node follows; the service refuses a node whose network does not fit the markets. */
  identity(): Promise<ChainIdentity>;
  /** The node's best block now. The watcher polls it: a new height or hash is a height change. */
  tip(): Promise<BlockRef>;
  /** The node's block at `height` on its best chain; undefined above its tip. Compared with stored hashes: reorgs. */
  blockAt(height: number): Promise<BlockRef | undefined>;
  /**
   * Everything in blocks `range.from`..`range.to` (inclusive, both on the node's best chain) that concerns
   * the orders in `watch`, in chain order (block height, then position in the block). The range is at most
   * `maxRangeBlocks` long; the watcher splits longer spans. Throws when the node cannot answer (the watcher
   * retries the same range later: nothing is skipped).
   */
  observations(range: BlockRange, watch: WatchSet): Promise<ChainObservation[]>;
  /**
   * Bitcoin: what the node's mempool holds now that concerns the orders in `watch`, each observation placed
   * in `MEMPOOL_BLOCK` (no confirmations). The watcher calls it once it has read the blocks up to the tip, and
   * uses the answer only if no block came meanwhile: a transaction is then either in this answer or in a block
   * read. The backend may remember what it read of the
   * mempool between calls (to read only what is new): that is a cache, never a fact a restart could lose.
   */
  mempool?(watch: WatchSet): Promise<ChainObservation[]>;
  /** Longest range `observations` accepts in one call (a node setting: log queries are bounded). */
  readonly maxRangeBlocks: number;
  /** Sends a signed transaction to the network. Resolves with its id; rejects with `BroadcastRefused`. */
  broadcast(signedTxHex: string): Promise<string>;
  /** Frees the backend's connections. */
  close(): Promise<void>;
}

export interface ChainIdentity {
  readonly chain: ChainKind;
  /** Which kind of network it is, so mainnet markets are never watched on a test chain. */
  readonly network: Network;
  /** EIP-155 chain id (Ethereum); the genesis block hash says as much on Bitcoin. */
  readonly chainId?: number;
  readonly genesisHash?: string;
}

export interface BlockRange {
  readonly from: number;
  readonly to: number;
}

/** An order the watcher wants to hear about, with what each network recognises it by. */
export interface WatchedOrder {
  readonly orderId: string;
  /** The HTLC address (Bitcoin: P2SH/P2WSH of the redeem script); Ethereum orders share the contract. */
  readonly payToAddress: string;
  readonly paymentHash: string;
  /** Bitcoin: the HTLC's redeem script, to tell a claim (preimage in the witness) from a refund. */
  readonly redeemScript?: string;
}

export interface WatchSet {
  readonly orders: readonly WatchedOrder[];
  /**
   * Funding outputs already seen and still unspent as far as the watcher knows (Bitcoin: spends of these
   * are claims or refunds). Ethereum ignores it: its contract says which order each event belongs to.
   */
  readonly fundingOutputs: readonly FundingOutput[];
  /**
   * Bitcoin: transactions the orders already name (fundings, refunds), confirmed or not. A mempool reader
   * reads these first, so after a restart a transaction seen in the mempool before is seen again at once.
   */
  readonly knownTxIds?: readonly string[];
}

export interface FundingOutput {
  readonly orderId: string;
  readonly txId: string;
  readonly outputIndex: number;
}

export type BroadcastRefusalReason = 'InvalidTransaction' | 'TransactionRejected';

/**
 * The network would not take a transaction: not a transaction at all (`InvalidTransaction`) or refused by
 * the node (`TransactionRejected`). `nodeMessage` is for the log, never for the client.
 */
export class BroadcastRefused extends Error {
  constructor(
    readonly reason: BroadcastRefusalReason,
    readonly nodeMessage: string,
  ) {
    super(reason);
    this.name = 'BroadcastRefused';
  }
}

/** A node that also prices transactions (Bitcoin): refunds are priced at its rate. */
export interface FeeRateSource {
  /** Satoshis per virtual byte for a confirmation within a few blocks; undefined when the node has no estimate. */
  feeRate(): Promise<number | undefined>;
}

import { Transaction } from 'bitcoinjs-lib';
import type { Network } from '../../domain/markets.js';
import {
  BroadcastRefused,
  type BlockRange,
  type BlockRef,
  type ChainIdentity,
  type ChainObservation,
  type WatchSet,
} from '../chain-backend.js';
import {
  checkedTransactionId,
  FEE_TARGET_BLOCKS,
  networkOfGenesis,
  wholeFeeRate,
  type BitcoinBackend,
} from './bitcoin-backend.js';
import { checkedBlock, type WholeBlock } from './checked-block.js';
import { indexWatchSet, observeBlock, OutputScripts } from './htlc-observations.js';
import { MempoolView, type MempoolLimits } from './mempool-view.js';
import type { NodeCallFailed } from '../node-faults.js';
import { badAnswer, callNode, DEFAULT_NODE_CALL_LIMITS, refusedCall, type NodeCallLimits } from '../node-http.js';

const BLOCK_HASH = /^[0-9a-f]{64}$/;

/**
 * The Esplora REST API (mempool.space, Blockstream's electrs), read like a node's own feed whatever the number
 * of orders: each new block once, raw (`/block/:hash/raw`), and the mempool by differences of
 * `/mempool/txids`, each new transaction read once (`/tx/:txid/hex`); both matched in memory against the
 * watched HTLC scripts and funding outputs.
 */
export class EsploraBackend implements BitcoinBackend {
  readonly chain = 'bitcoin';
  /** One raw block (up to 4 MB) per block: a bounded batch keeps each pass of the watcher short. */
  readonly maxRangeBlocks = 20;
  private readonly baseUrl: string;
  private readonly mempoolView: MempoolView;
  /** Shared by blocks and mempool: the same watch set, decoded once. */
  private readonly outputScripts: OutputScripts;

  constructor(
    baseUrl: string,
    network: Network,
    private readonly limits: NodeCallLimits = DEFAULT_NODE_CALL_LIMITS,
    mempoolLimits?: MempoolLimits,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.outputScripts = new OutputScripts(network);
    this.mempoolView = new MempoolView(
      { listTxIds: () => this.mempoolTxIds(), transaction: (txId) => this.mempoolTransaction(txId) },
      this.outputScripts,
      mempoolLimits,
    );
  }

  /** The answer to a GET, undefined for a 404 (what Esplora answers for a block or transaction it does not have). */
  private async answer(path: string): Promise<Buffer | undefined> {
    const url = `${this.baseUrl}${path}`;
    const answer = await callNode(url, {}, this.limits, `Esplora GET ${path}`);
    if (answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) throw refusedCall(url, `Esplora GET ${path}`, answer);
    return answer.bytes;
  }

  private async get(path: string): Promise<string | undefined> {
    return (await this.answer(path))?.toString('utf8').trim();
  }

  private async json(path: string): Promise<unknown> {
    const body = await this.get(path);
    if (body === undefined) throw this.bad(path, 'not found');
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw this.bad(path, 'not JSON');
    }
  }

  private async blockHash(path: string): Promise<string | undefined> {
    const hash = await this.get(path);
    if (hash !== undefined && !BLOCK_HASH.test(hash)) throw this.bad(path, 'not a block hash');
    return hash;
  }

  private bad(path: string, detail: string): NodeCallFailed {
    return badAnswer(this.baseUrl, `Esplora GET ${path}`, detail);
  }

  async identity(): Promise<ChainIdentity> {
    const genesisHash = await this.blockHash('/block-height/0');
    if (genesisHash === undefined) throw this.bad('/block-height/0', 'the server has no block 0');
    return { chain: 'bitcoin', network: networkOfGenesis(genesisHash), genesisHash };
  }

  async tip(): Promise<BlockRef> {
    // The hash first, then its height: two reads of the tip could straddle a new block.
    const hash = await this.blockHash('/blocks/tip/hash');
    if (hash === undefined) throw this.bad('/blocks/tip/hash', 'the server has no tip');
    const block = await this.json(`/block/${hash}`);
    const height = (block as { height?: unknown } | null)?.height;
    if (!Number.isSafeInteger(height) || (height as number) < 0) throw this.bad(`/block/${hash}`, 'no height');
    return { height: height as number, hash };
  }

  async blockAt(height: number): Promise<BlockRef | undefined> {
    const hash = await this.blockHash(`/block-height/${height}`);
    return hash === undefined ? undefined : { height, hash };
  }

  async observations(range: BlockRange, watch: WatchSet): Promise<ChainObservation[]> {
    const index = indexWatchSet(watch, this.outputScripts);
    const observations: ChainObservation[] = [];
    for (let height = range.from; height <= range.to; height++) {
      const at = await this.blockAt(height);
      if (at === undefined) throw this.bad(`/block-height/${height}`, 'no block at a height below the tip');
      const block = await this.block(at.hash);
      const placed = block.transactions.map((tx, position) => ({ tx, index: position }));
      observations.push(...observeBlock(at, placed, index));
    }
    return observations;
  }

  mempool(watch: WatchSet): Promise<ChainObservation[]> {
    return this.mempoolView.observations(watch);
  }

  /** The block, raw: one request however many transactions it holds, held to its hash (`checkedBlock`). */
  private async block(hash: string): Promise<WholeBlock> {
    const path = `/block/${hash}/raw`;
    const raw = await this.answer(path);
    if (raw === undefined) throw this.bad(path, 'not found');
    return checkedBlock(raw, hash, (detail) => this.bad(path, detail));
  }

  private async mempoolTxIds(): Promise<readonly unknown[]> {
    const ids = await this.json('/mempool/txids');
    if (!Array.isArray(ids)) throw this.bad('/mempool/txids', 'not a list');
    return ids as unknown[];
  }

  /** The transaction's raw form, which must hash to the id asked: the node cannot swap in another. */
  private async mempoolTransaction(txId: string): Promise<Transaction | undefined> {
    const path = `/tx/${txId}/hex`;
    const hex = await this.get(path);
    if (hex === undefined) return undefined;
    let tx: Transaction;
    try {
      tx = Transaction.fromHex(hex);
    } catch {
      throw this.bad(path, 'not a transaction');
    }
    if (tx.getId() !== txId) throw this.bad(path, 'a transaction with another id');
    return tx;
  }

  async feeRate(): Promise<number | undefined> {
    const answer = await this.json('/fee-estimates');
    if (typeof answer !== 'object' || answer === null) throw this.bad('/fee-estimates', 'not an object');
    const estimates = answer as Record<string, number>;
    const targets = Object.keys(estimates)
      .map(Number)
      .filter((target) => Number.isInteger(target) && target >= FEE_TARGET_BLOCKS)
      .sort((a, b) => a - b);
    const target = targets[0];
    return target === undefined ? undefined : wholeFeeRate(estimates[String(target)] ?? Number.NaN);
  }

  async broadcast(signedTxHex: string): Promise<string> {
    const txId = checkedTransactionId(signedTxHex);
    const url = `${this.baseUrl}/tx`;
    const init = { method: 'POST', body: signedTxHex, headers: { 'Content-Type': 'text/plain' } };
    const answer = await callNode(url, init, this.limits, 'Esplora POST /tx');
    const body = answer.body.trim();
    // Esplora answers 400 with the node's reason for a transaction it refuses; anything else is the server failing.
    if (answer.status === 400) throw new BroadcastRefused('TransactionRejected', body.slice(0, 500));
    if (answer.status < 200 || answer.status > 299) throw refusedCall(url, 'Esplora POST /tx', answer);
    // The id is the transaction's hash, known before sending: whatever else the node answers says nothing more.
    return txId;
  }

  async close(): Promise<void> {}
}

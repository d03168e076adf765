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
import { nodeUrlForLog } from '../../domain/node-url.js';
import { observeBlock, type KnownOutputs, type PlacedTransaction } from './htlc-observations.js';
import { NodeCallFailed } from '../node-faults.js';
import { badAnswer, callNode, DEFAULT_NODE_CALL_LIMITS, refusedCall, type NodeCallLimits } from '../node-http.js';

/** The part of Esplora's transaction JSON read here. */
interface EsploraTx {
  readonly txid: string;
  readonly status: { readonly confirmed: boolean; readonly block_height?: number; readonly block_hash?: string };
}

/** Esplora pages an address's confirmed history 25 at a time. */
const ADDRESS_PAGE = 25;

/**
 * Pages of one address's history read in one call: 1,000 transactions since the range's first block. An HTLC
 * address sees two or three; a node paging past this is refused (`tooManyPages`) rather than followed without
 * end. Someone could pay 1,000 dust outputs to an HTLC address to reach it: that stalls the watcher (which
 * `/readyz` and the log then say) but cannot make it record anything false.
 */
export const MAX_ADDRESS_PAGES = 40;

const BLOCK_HASH = /^[0-9a-f]{64}$/;

/**
 * The Esplora REST API (mempool.space, Blockstream's electrs): the history of each watched HTLC address,
 * which holds both the transactions paying it and those spending from it, read from the newest back to the
 * range asked; then each transaction's raw hex and place in its block.
 */
export class EsploraBackend implements BitcoinBackend {
  readonly chain = 'bitcoin';
  /** Reads per call grow with the watched orders, not with the blocks, so a wide range costs little. */
  readonly maxRangeBlocks = 144;
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly network: Network,
    private readonly limits: NodeCallLimits = DEFAULT_NODE_CALL_LIMITS,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** The body of a GET, undefined for a 404 (what Esplora answers for a block or transaction it does not have). */
  private async get(path: string): Promise<string | undefined> {
    const url = `${this.baseUrl}${path}`;
    const answer = await callNode(url, {}, this.limits, `Esplora GET ${path}`);
    if (answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) throw refusedCall(url, `Esplora GET ${path}`, answer);
    return answer.body.trim();
  }

  private async found(path: string): Promise<string> {
    const body = await this.get(path);
    if (body === undefined) throw this.bad(path, 'not found');
    return body;
  }

  private async json(path: string): Promise<unknown> {
    const body = await this.found(path);
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
    const inRange = new Map<string, BlockRef>();
    for (const order of watch.orders) {
      for (const tx of await this.confirmedHistoryFrom(order.payToAddress, range.from)) {
        const height = tx.status.block_height;
        const hash = tx.status.block_hash;
        if (height !== undefined && hash !== undefined && height <= range.to) inRange.set(tx.txid, { height, hash });
      }
    }
    const byBlock = new Map<string, { block: BlockRef; txIds: string[] }>();
    for (const [txId, block] of inRange) {
      const entry = byBlock.get(block.hash) ?? { block, txIds: [] };
      entry.txIds.push(txId);
      byBlock.set(block.hash, entry);
    }
    const blocks = [...byBlock.values()].sort((a, b) => a.block.height - b.block.height);
    const knownOutputs: KnownOutputs = new Map();
    const observations: ChainObservation[] = [];
    for (const { block, txIds } of blocks) {
      const order = await this.json(`/block/${block.hash}/txids`);
      if (!Array.isArray(order)) throw this.bad(`/block/${block.hash}/txids`, 'not a list');
      const placed: PlacedTransaction[] = [];
      for (const txId of txIds) {
        placed.push({ tx: await this.transaction(txId), index: this.placeIn(order, txId, block.hash) });
      }
      observations.push(...observeBlock(block, placed, watch, this.network, knownOutputs));
    }
    return observations;
  }

  /** The transaction's raw form, which must hash to the id asked: the node cannot swap in another. */
  private async transaction(txId: string): Promise<Transaction> {
    const path = `/tx/${txId}/hex`;
    let tx: Transaction;
    try {
      tx = Transaction.fromHex(await this.found(path));
    } catch (error) {
      if (error instanceof NodeCallFailed) throw error;
      throw this.bad(path, 'not a transaction');
    }
    if (tx.getId() !== txId) throw this.bad(path, 'a transaction with another id');
    return tx;
  }

  private placeIn(order: unknown[], txId: string, blockHash: string): number {
    const index = order.indexOf(txId);
    if (index < 0) throw this.bad(`/block/${blockHash}/txids`, `no ${txId}, which the address history placed there`);
    return index;
  }

  /** The address's confirmed transactions down to `fromHeight`, newest first, page by page, at most MAX_ADDRESS_PAGES. */
  private async confirmedHistoryFrom(address: string, fromHeight: number): Promise<EsploraTx[]> {
    const found: EsploraTx[] = [];
    const base = `/address/${encodeURIComponent(address)}/txs/chain`;
    let path = base;
    for (let pages = 1; ; pages += 1) {
      const confirmed = this.historyPage(path, await this.json(path)).filter((tx) => tx.status.confirmed);
      found.push(...confirmed.filter((tx) => (tx.status.block_height ?? 0) >= fromHeight));
      const last = confirmed.at(-1);
      if (confirmed.length < ADDRESS_PAGE || last === undefined || (last.status.block_height ?? 0) < fromHeight)
        return found;
      if (pages === MAX_ADDRESS_PAGES) {
        throw new NodeCallFailed(
          'tooManyPages',
          nodeUrlForLog(this.baseUrl),
          `Esplora GET ${base}`,
          `more than ${MAX_ADDRESS_PAGES} pages of history since block ${fromHeight}`,
        );
      }
      path = `${base}/${last.txid}`;
    }
  }

  private historyPage(path: string, page: unknown): EsploraTx[] {
    const wellFormed =
      Array.isArray(page) &&
      page.every((tx: Partial<EsploraTx> | null) => typeof tx?.txid === 'string' && typeof tx.status === 'object');
    if (!wellFormed) throw this.bad(path, 'not a list of transactions');
    return page as EsploraTx[];
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

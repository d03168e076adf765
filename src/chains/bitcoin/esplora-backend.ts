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
import { checkedTransactionId, FEE_TARGET_BLOCKS, networkOfGenesis, wholeFeeRate, type BitcoinBackend } from './bitcoin-backend.js';
import { observeBlock, type KnownOutputs, type PlacedTransaction } from './htlc-observations.js';
import { NODE_TIMEOUT_MS, NodeHttpError } from './http.js';

/** The part of Esplora's transaction JSON read here. */
interface EsploraTx {
  readonly txid: string;
  readonly status: { readonly confirmed: boolean; readonly block_height?: number; readonly block_hash?: string };
}

/** Esplora pages an address's confirmed history 25 at a time. */
const ADDRESS_PAGE = 25;

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
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  private async get(path: string): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(NODE_TIMEOUT_MS) });
    if (!response.ok && response.status !== 404) {
      throw new NodeHttpError(response.status, await response.text(), `Esplora GET ${path}`);
    }
    return response;
  }

  private async text(path: string): Promise<string | undefined> {
    const response = await this.get(path);
    if (response.status === 404) return undefined;
    return (await response.text()).trim();
  }

  private async json<T>(path: string): Promise<T> {
    const response = await this.get(path);
    if (response.status === 404) throw new NodeHttpError(404, await response.text(), `Esplora GET ${path}`);
    return (await response.json()) as T;
  }

  async identity(): Promise<ChainIdentity> {
    const genesisHash = await this.text('/block-height/0');
    if (genesisHash === undefined) throw new Error('the Esplora server has no block 0');
    return { chain: 'bitcoin', network: networkOfGenesis(genesisHash), genesisHash };
  }

  async tip(): Promise<BlockRef> {
    // The hash first, then its height: two reads of the tip could straddle a new block.
    const hash = await this.text('/blocks/tip/hash');
    if (hash === undefined) throw new Error('the Esplora server has no tip');
    const { height } = await this.json<{ height: number }>(`/block/${hash}`);
    return { height, hash };
  }

  async blockAt(height: number): Promise<BlockRef | undefined> {
    const hash = await this.text(`/block-height/${height}`);
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
      const order = await this.json<string[]>(`/block/${block.hash}/txids`);
      const placed: PlacedTransaction[] = [];
      for (const txId of txIds) {
        const hex = await this.text(`/tx/${txId}/hex`);
        if (hex === undefined) throw new Error(`Esplora lost transaction ${txId}`);
        placed.push({ tx: Transaction.fromHex(hex), index: order.indexOf(txId) });
      }
      observations.push(...observeBlock(block, placed, watch, this.network, knownOutputs));
    }
    return observations;
  }

  /** The address's confirmed transactions down to `fromHeight`, newest first, page by page. */
  private async confirmedHistoryFrom(address: string, fromHeight: number): Promise<EsploraTx[]> {
    const found: EsploraTx[] = [];
    let page = await this.json<EsploraTx[]>(`/address/${encodeURIComponent(address)}/txs/chain`);
    for (;;) {
      const confirmed = page.filter((tx) => tx.status.confirmed);
      found.push(...confirmed.filter((tx) => (tx.status.block_height ?? 0) >= fromHeight));
      const last = confirmed.at(-1);
      if (confirmed.length < ADDRESS_PAGE || last === undefined || (last.status.block_height ?? 0) < fromHeight) return found;
      page = await this.json<EsploraTx[]>(`/address/${encodeURIComponent(address)}/txs/chain/${last.txid}`);
    }
  }

  async feeRate(): Promise<number | undefined> {
    const estimates = await this.json<Record<string, number>>('/fee-estimates');
    const targets = Object.keys(estimates)
      .map(Number)
      .filter((target) => Number.isInteger(target) && target >= FEE_TARGET_BLOCKS)
      .sort((a, b) => a - b);
    const target = targets[0];
    return target === undefined ? undefined : wholeFeeRate(estimates[String(target)] ?? Number.NaN);
  }

  async broadcast(signedTxHex: string): Promise<string> {
    const txId = checkedTransactionId(signedTxHex);
    const response = await fetch(`${this.baseUrl}/tx`, {
      method: 'POST',
      body: signedTxHex,
      headers: { 'Content-Type': 'text/plain' },
      signal: AbortSignal.timeout(NODE_TIMEOUT_MS),
    });
    const body = (await response.text()).trim();
    // Esplora answers 400 with the node's reason for a transaction it refuses; anything else is the server failing.
    if (response.status === 400) throw new BroadcastRefused('TransactionRejected', body);
    if (!response.ok) throw new NodeHttpError(response.status, body, 'Esplora POST /tx');
    return body === '' ? txId : body;
  }

  async close(): Promise<void> {}
}

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
import {
  badAnswer,
  callNode,
  DEFAULT_NODE_CALL_LIMITS,
  refusedCall,
  splitCredentials,
  type NodeCallLimits,
} from '../node-http.js';

/** An error Bitcoin Core answered a call with. */
export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly nodeMessage: string,
    method: string,
  ) {
    super(`bitcoind ${method}: error ${code}`);
    this.name = 'RpcCallError';
  }
}

/** getblockhash's answer for a height above the tip. */
const RPC_INVALID_PARAMETER = -8;
/** getrawtransaction's answer for a transaction the node does not have. */
const RPC_INVALID_ADDRESS_OR_KEY = -5;

const BLOCK_HASH = /^[0-9a-f]{64}$/;

export interface CoreRpcCredentials {
  readonly user?: string;
  readonly password?: string;
}

interface BlockchainInfo {
  readonly chain: string;
  readonly blocks: number;
  readonly bestblockhash: string;
}

/** Bitcoin Core's `chain` names. */
const CORE_CHAINS: Readonly<Record<string, Network>> = {
  main: 'mainnet',
  test: 'testnet',
  testnet4: 'testnet',
  signet: 'testnet',
  regtest: 'simnet',
};

/**
 * Bitcoin Core's JSON-RPC: every block of the range, read whole and raw (`getblock <hash> 0`), so nothing
 * depends on an address index the node may not keep; the mempool by differences of `getrawmempool`, each new
 * transaction read once with `getrawtransaction` (which serves mempool transactions without `txindex`).
 */
export class CoreRpcBackend implements BitcoinBackend {
  readonly chain = 'bitcoin';
  /** One getblock per block: a bounded batch keeps each pass of the watcher short. */
  readonly maxRangeBlocks = 20;
  private readonly url: string;
  private readonly authorization: string | undefined;
  private nextId = 1;
  private readonly mempoolView: MempoolView;
  /** Shared by blocks and mempool: the same watch set, decoded once. */
  private readonly outputScripts: OutputScripts;

  /** `url` may carry the user and password; `credentials` (from the environment) fill in what it lacks. */
  constructor(
    url: string,
    network: Network,
    credentials: CoreRpcCredentials = {},
    private readonly limits: NodeCallLimits = DEFAULT_NODE_CALL_LIMITS,
    mempoolLimits?: MempoolLimits,
  ) {
    this.outputScripts = new OutputScripts(network);
    this.mempoolView = new MempoolView(
      { listTxIds: () => this.mempoolTxIds(), transaction: (txId) => this.mempoolTransaction(txId) },
      this.outputScripts,
      mempoolLimits,
    );
    const split = splitCredentials(url);
    this.url = split.url;
    const user = split.user ?? credentials.user;
    const password = split.password ?? credentials.password;
    this.authorization =
      user === undefined && password === undefined
        ? undefined
        : `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}`;
  }

  /** The call's result, whose shape the caller checks: the node's answer is not trusted to match its documentation. */
  private async call(method: string, params: unknown[] = []): Promise<unknown> {
    const init = {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(this.authorization === undefined ? {} : { Authorization: this.authorization }),
      },
      body: JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params }),
    };
    const answer = await callNode(this.url, init, this.limits, `bitcoind ${method}`);
    let reply: { result?: unknown; error?: { code?: unknown; message?: unknown } | null } | null | undefined;
    try {
      reply = JSON.parse(answer.body) as typeof reply;
    } catch {
      reply = undefined;
    }
    // Core answers RPC errors with HTTP 500 and the error in the body; 401 and the like have no JSON body.
    const error = reply?.error;
    if (typeof error?.code === 'number')
      throw new RpcCallError(error.code, String(error.message).slice(0, 500), method);
    if (answer.status < 200 || answer.status > 299) throw refusedCall(this.url, `bitcoind ${method}`, answer);
    if (reply === undefined || reply === null || typeof reply !== 'object') throw this.bad(method, 'not JSON-RPC');
    return reply.result;
  }

  private bad(method: string, detail: string) {
    return badAnswer(this.url, `bitcoind ${method}`, detail);
  }

  private async blockchainInfo(): Promise<BlockchainInfo> {
    const info = (await this.call('getblockchaininfo')) as Partial<BlockchainInfo> | null;
    if (
      typeof info?.chain !== 'string' ||
      !Number.isSafeInteger(info.blocks) ||
      (info.blocks as number) < 0 ||
      typeof info.bestblockhash !== 'string' ||
      !BLOCK_HASH.test(info.bestblockhash)
    ) {
      throw this.bad('getblockchaininfo', 'no chain, height and best block hash');
    }
    return info as BlockchainInfo;
  }

  private async blockHash(height: number): Promise<string> {
    const hash = await this.call('getblockhash', [height]);
    if (typeof hash !== 'string' || !BLOCK_HASH.test(hash)) throw this.bad('getblockhash', 'not a block hash');
    return hash;
  }

  async identity(): Promise<ChainIdentity> {
    const info = await this.blockchainInfo();
    const genesisHash = await this.blockHash(0);
    const network = CORE_CHAINS[info.chain] ?? networkOfGenesis(genesisHash);
    return { chain: 'bitcoin', network, genesisHash };
  }

  async tip(): Promise<BlockRef> {
    const info = await this.blockchainInfo();
    return { height: info.blocks, hash: info.bestblockhash };
  }

  async blockAt(height: number): Promise<BlockRef | undefined> {
    try {
      return { height, hash: await this.blockHash(height) };
    } catch (error) {
      if (error instanceof RpcCallError && error.code === RPC_INVALID_PARAMETER) return undefined;
      throw error;
    }
  }

  async observations(range: BlockRange, watch: WatchSet): Promise<ChainObservation[]> {
    const index = indexWatchSet(watch, this.outputScripts);
    const observations: ChainObservation[] = [];
    for (let height = range.from; height <= range.to; height++) {
      const hash = await this.blockHash(height);
      const block = await this.block(hash);
      const placed = block.transactions.map((tx, position) => ({ tx, index: position }));
      observations.push(...observeBlock({ height, hash }, placed, index));
    }
    return observations;
  }

  mempool(watch: WatchSet): Promise<ChainObservation[]> {
    return this.mempoolView.observations(watch);
  }

  /** The raw block (the smallest answer: at most 8,000,000 hex digits), held to its hash (`checkedBlock`). */
  private async block(hash: string): Promise<WholeBlock> {
    const hex = await this.call('getblock', [hash, 0]);
    if (typeof hex !== 'string' || !/^(?:[0-9a-f]{2})+$/i.test(hex)) throw this.bad('getblock', 'not a block');
    return checkedBlock(Buffer.from(hex, 'hex'), hash, (detail) => this.bad('getblock', detail));
  }

  private async mempoolTxIds(): Promise<readonly unknown[]> {
    const ids = await this.call('getrawmempool', [false]);
    if (!Array.isArray(ids)) throw this.bad('getrawmempool', 'not a list');
    return ids as unknown[];
  }

  private async mempoolTransaction(txId: string): Promise<Transaction | undefined> {
    let hex: unknown;
    try {
      hex = await this.call('getrawtransaction', [txId, false]);
    } catch (error) {
      if (error instanceof RpcCallError && error.code === RPC_INVALID_ADDRESS_OR_KEY) return undefined;
      throw error;
    }
    if (typeof hex !== 'string') throw this.bad('getrawtransaction', 'not a transaction');
    let tx: Transaction;
    try {
      tx = Transaction.fromHex(hex);
    } catch {
      throw this.bad('getrawtransaction', 'not a transaction');
    }
    if (tx.getId() !== txId) throw this.bad('getrawtransaction', 'a transaction with another id');
    return tx;
  }

  async feeRate(): Promise<number | undefined> {
    const estimate = (await this.call('estimatesmartfee', [FEE_TARGET_BLOCKS])) as { feerate?: unknown } | null;
    if (typeof estimate !== 'object' || estimate === null) throw this.bad('estimatesmartfee', 'not an object');
    if (estimate.feerate !== undefined && typeof estimate.feerate !== 'number') {
      throw this.bad('estimatesmartfee', 'a fee rate that is not a number');
    }
    // BTC per 1000 virtual bytes to satoshis per virtual byte.
    return estimate.feerate === undefined ? undefined : wholeFeeRate(estimate.feerate * 100_000);
  }

  async broadcast(signedTxHex: string): Promise<string> {
    const txId = checkedTransactionId(signedTxHex);
    try {
      await this.call('sendrawtransaction', [signedTxHex]);
      return txId;
    } catch (error) {
      if (error instanceof RpcCallError)
        throw new BroadcastRefused('TransactionRejected', `${error.code} ${error.nodeMessage}`);
      throw error;
    }
  }

  async close(): Promise<void> {}
}

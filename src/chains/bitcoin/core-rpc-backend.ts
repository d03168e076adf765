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
import { observeBlock, type KnownOutputs } from './htlc-observations.js';
import { NODE_TIMEOUT_MS, NodeHttpError, splitCredentials } from './http.js';

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
 * Bitcoin Core's JSON-RPC: every block of the range, read whole (`getblock` verbosity 2 carries each
 * transaction's hex), so nothing depends on an address index the node may not keep.
 */
export class CoreRpcBackend implements BitcoinBackend {
  readonly chain = 'bitcoin';
  /** One getblock per block: a bounded batch keeps each pass of the watcher short. */
  readonly maxRangeBlocks = 20;
  private readonly url: string;
  private readonly authorization: string | undefined;
  private nextId = 1;

  /** `url` may carry the user and password; `credentials` (from the environment) fill in what it lacks. */
  constructor(
    url: string,
    private readonly network: Network,
    credentials: CoreRpcCredentials = {},
  ) {
    const split = splitCredentials(url);
    this.url = split.url;
    const user = split.user ?? credentials.user;
    const password = split.password ?? credentials.password;
    this.authorization =
      user === undefined && password === undefined
        ? undefined
        : `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}`;
  }

  private async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(this.authorization === undefined ? {} : { Authorization: this.authorization }),
      },
      body: JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params }),
      signal: AbortSignal.timeout(NODE_TIMEOUT_MS),
    });
    const text = await response.text();
    let reply: { result?: T; error?: { code: number; message: string } | null } | undefined;
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      reply = undefined;
    }
    // Core answers RPC errors with HTTP 500 and the error in the body; 401 and the like have no JSON body.
    if (reply?.error) throw new RpcCallError(reply.error.code, reply.error.message, method);
    if (!response.ok || reply === undefined) throw new NodeHttpError(response.status, text, `bitcoind ${method}`);
    return reply.result as T;
  }

  async identity(): Promise<ChainIdentity> {
    const info = await this.call<BlockchainInfo>('getblockchaininfo');
    const genesisHash = await this.call<string>('getblockhash', [0]);
    const network = CORE_CHAINS[info.chain] ?? networkOfGenesis(genesisHash);
    return { chain: 'bitcoin', network, genesisHash };
  }

  async tip(): Promise<BlockRef> {
    const info = await this.call<BlockchainInfo>('getblockchaininfo');
    return { height: info.blocks, hash: info.bestblockhash };
  }

  async blockAt(height: number): Promise<BlockRef | undefined> {
    try {
      return { height, hash: await this.call<string>('getblockhash', [height]) };
    } catch (error) {
      if (error instanceof RpcCallError && error.code === RPC_INVALID_PARAMETER) return undefined;
      throw error;
    }
  }

  async observations(range: BlockRange, watch: WatchSet): Promise<ChainObservation[]> {
    const knownOutputs: KnownOutputs = new Map();
    const observations: ChainObservation[] = [];
    for (let height = range.from; height <= range.to; height++) {
      const hash = await this.call<string>('getblockhash', [height]);
      const block = await this.call<{ hash: string; height: number; tx: { hex: string }[] }>('getblock', [hash, 2]);
      const placed = block.tx.map((tx, index) => ({ tx: Transaction.fromHex(tx.hex), index }));
      observations.push(...observeBlock({ height, hash: block.hash }, placed, watch, this.network, knownOutputs));
    }
    return observations;
  }

  async feeRate(): Promise<number | undefined> {
    const estimate = await this.call<{ feerate?: number }>('estimatesmartfee', [FEE_TARGET_BLOCKS]);
    // BTC per 1000 virtual bytes to satoshis per virtual byte.
    return estimate.feerate === undefined ? undefined : wholeFeeRate(estimate.feerate * 100_000);
  }

  async broadcast(signedTxHex: string): Promise<string> {
    checkedTransactionId(signedTxHex);
    try {
      return await this.call<string>('sendrawtransaction', [signedTxHex]);
    } catch (error) {
      if (error instanceof RpcCallError) throw new BroadcastRefused('TransactionRejected', `${error.code} ${error.nodeMessage}`);
      throw error;
    }
  }

  async close(): Promise<void> {}
}

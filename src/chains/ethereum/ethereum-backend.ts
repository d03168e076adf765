import {
  BlockNotFoundError,
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  keccak256,
  parseTransaction,
  type Hex,
  type Log,
  type PublicClient,
} from 'viem';
import { isZeroXHex } from '../../domain/hex.js';
import { nodeUrlForLog } from '../../domain/node-url.js';
import type { SwapContractVersion } from '../../domain/order.js';
import { normalizeOrderId } from '../../domain/order-ids.js';
import {
  BroadcastRefused,
  type BlockRange,
  type BlockRef,
  type ChainBackend,
  type ChainIdentity,
  type ChainObservation,
  type WatchSet,
} from '../chain-backend.js';
import { NodeCallFailed, nodeCallFailureIn } from '../node-faults.js';
import { boundedNodeTransport } from './node-transport.js';
import { networkOfChainId } from './networks.js';
import { SWAP_CONTRACT_ARTIFACT_ABI as SWAP_CONTRACT_WATCH_ABI } from './swap-contract-artifact.js';
import { NotSwapContract, swapContractVersionOfCode } from './swap-contract-version.js';

export interface EthereumBackendOptions {
  readonly rpcUrl: string;
  /** The contract new quotes use; logs are read from it and from every contract a watched order was made on. */
  readonly swapContractAddress: string;
  /** Longest block range of one eth_getLogs call; public nodes commonly refuse more than a few thousand. */
  readonly maxRangeBlocks?: number;
  /** Milliseconds one JSON-RPC call may take, its whole answer read. */
  readonly timeoutMs?: number;
  /** Largest answer of one call, in bytes (a log query over `maxRangeBlocks` is the largest). */
  readonly maxAnswerBytes?: number;
  /** Told once per log query that answered logs of unwatched contracts, which are dropped whatever they say. */
  readonly onForeignLogs?: (foreign: ForeignLogs) => void;
}

/** Logs a node answered to a query for the watched contracts that another contract emitted. */
export interface ForeignLogs {
  readonly range: BlockRange;
  readonly count: number;
  /** The emitting contracts, lowercase, each once. */
  readonly addresses: readonly string[];
}

export const DEFAULT_MAX_RANGE_BLOCKS = 2_000;

/**
 * The swap contracts on an Ethereum node, through JSON-RPC: the current one, and each one a watched order was made
 * on (its `payToAddress`), whose logs count toward that order alone.
 */
export class EthereumBackend implements ChainBackend {
  readonly chain = 'ethereum';
  readonly maxRangeBlocks: number;
  private readonly client: PublicClient;
  private readonly address: Hex;
  private readonly onForeignLogs: ((foreign: ForeignLogs) => void) | undefined;
  private readonly node: string;

  constructor(options: EthereumBackendOptions) {
    this.onForeignLogs = options.onForeignLogs;
    this.maxRangeBlocks = options.maxRangeBlocks ?? DEFAULT_MAX_RANGE_BLOCKS;
    this.address = options.swapContractAddress.toLowerCase() as Hex;
    this.node = nodeUrlForLog(options.rpcUrl);
    this.client = createPublicClient({
      transport: boundedNodeTransport(options.rpcUrl, {
        timeoutMs: options.timeoutMs ?? 10_000,
        ...(options.maxAnswerBytes === undefined ? {} : { maxBytes: options.maxAnswerBytes }),
      }),
    });
  }

  async identity(): Promise<ChainIdentity> {
    const chainId = await this.answer('eth_chainId', () => this.client.getChainId());
    if (!Number.isSafeInteger(chainId) || chainId <= 0) throw this.bad('eth_chainId', 'not a chain id');
    return { chain: 'ethereum', network: networkOfChainId(chainId), chainId };
  }

  async tip(): Promise<BlockRef> {
    try {
      const block = await this.answer('eth_getBlockByNumber', () => this.client.getBlock({ blockTag: 'latest' }));
      return this.blockRef(block, undefined);
    } catch (error) {
      // Every node has a latest block: null for it is no answer.
      if (error instanceof BlockNotFoundError) throw this.bad('eth_getBlockByNumber', 'no latest block');
      throw error;
    }
  }

  async blockAt(height: number): Promise<BlockRef | undefined> {
    try {
      const block = await this.answer('eth_getBlockByNumber', () =>
        this.client.getBlock({ blockNumber: BigInt(height) }),
      );
      return this.blockRef(block, height);
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined;
      throw error;
    }
  }

  /** A block's height and hash, held to their form (and to the height asked): the node is not trusted to. */
  private blockRef(
    block: { number: unknown; hash: unknown; timestamp?: unknown },
    askedHeight: number | undefined,
  ): BlockRef {
    const height = typeof block.number === 'bigint' ? Number(block.number) : Number.NaN;
    const wellFormed =
      Number.isSafeInteger(height) &&
      height >= 0 &&
      (askedHeight === undefined || height === askedHeight) &&
      typeof block.hash === 'string' &&
      /^0x[0-9a-f]{64}$/.test(block.hash);
    if (!wellFormed) throw this.bad('eth_getBlockByNumber', 'not a block of the height asked with a hash');
    // A timestamp out of form is left out: a funding in the block is then judged in time (chain-derivation.ts).
    const seconds = typeof block.timestamp === 'bigint' ? Number(block.timestamp) : Number.NaN;
    const timestamp = Number.isSafeInteger(seconds * 1000) && seconds >= 0 ? { timestamp: seconds * 1000 } : {};
    return { height, hash: block.hash as string, ...timestamp };
  }

  /**
   * The result of a read, or a `badAnswer` when viem could not make sense of what the node sent (its formatters
   * throw plain errors, e.g. on a number that is an object). A failure of the call itself is thrown as the
   * NodeCallFailed the transport raised, out of viem's wrapping, so its one line names the call and the fault;
   * the rest (JSON-RPC errors, viem's own refusals) pass through.
   */
  private async answer<T>(method: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      const failure = nodeCallFailureIn(error);
      if (failure !== undefined) throw failure;
      if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
        throw this.bad(method, error.message);
      }
      throw error;
    }
  }

  private bad(method: string, detail: string): NodeCallFailed {
    return new NodeCallFailed('badAnswer', this.node, `ethereum ${method}`, detail);
  }

  /**
   * The contract's refund delay in blocks: the first funding's refund height is its block plus this. The answer
   * must be the one word `refundDelay()` returns, a whole number of blocks from 1 up to a safe integer.
   */
  async refundDelay(): Promise<number> {
    const call = { abi: SWAP_CONTRACT_WATCH_ABI, functionName: 'refundDelay' } as const;
    const { data } = await this.answer('eth_call', () =>
      this.client.call({ to: this.address, data: encodeFunctionData(call) }),
    );
    if (data === undefined || data.length !== 2 + 64) throw this.bad('eth_call', 'refundDelay() answered no word');
    const delay = decodeFunctionResult({ ...call, data });
    if (delay < 1n || delay > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw this.bad('eth_call', 'refundDelay() answered no whole number of blocks');
    }
    return Number(delay);
  }

  /**
   * The version of the current contract, recognised by its runtime code (src/domain/swap-contract-code.ts). Throws
   * `NotSwapContract` when the address holds no code or another contract's, and a `badAnswer` when what the node
   * answered is not code at all.
   */
  async swapContractVersion(): Promise<SwapContractVersion> {
    const code: unknown = await this.answer('eth_getCode', () => this.client.getCode({ address: this.address }));
    try {
      return swapContractVersionOfCode(this.address, code);
    } catch (error) {
      if (error instanceof NotSwapContract && error.mismatch === 'UnreadableCode') {
        throw this.bad('eth_getCode', error.message);
      }
      throw error;
    }
  }

  async observations(range: BlockRange, watch: WatchSet): Promise<ChainObservation[]> {
    if (range.to - range.from + 1 > this.maxRangeBlocks) {
      throw new RangeError(`block range ${range.from}..${range.to} is longer than ${this.maxRangeBlocks} blocks`);
    }
    // Each order counts only what happens in the contract it was made on: the same order id in another contract
    // is someone else's slot.
    const contractOf = new Map(watch.orders.map((order) => [order.orderId, order.payToAddress.toLowerCase()]));
    const contracts = [...new Set([this.address, ...contractOf.values()])] as Hex[];
    const logs = await this.answer('eth_getLogs', () =>
      this.client.getLogs({
        address: contracts,
        events: SWAP_CONTRACT_WATCH_ABI.filter((item) => item.type === 'event'),
        fromBlock: BigInt(range.from),
        toBlock: BigInt(range.to),
        strict: true,
      }),
    );
    if (!logs.every((log) => isPlacedLog(log, range))) {
      throw this.bad('eth_getLogs', `a log without its contract, block of ${range.from}..${range.to}, or place`);
    }
    // The node is not trusted to have filtered: a log of another contract may carry the same events.
    const ours = logs.filter((log) => contracts.includes(log.address.toLowerCase() as Hex));
    if (ours.length < logs.length) {
      const addresses = [...new Set(logs.map((log) => log.address.toLowerCase() as Hex))].filter(
        (address) => !contracts.includes(address),
      );
      this.onForeignLogs?.({ range, count: logs.length - ours.length, addresses });
    }
    return ours
      .flatMap((log) => {
        const observation = observationOf(log);
        if (observation === undefined) return [];
        return contractOf.get(observation.orderId) === log.address.toLowerCase() ? [observation] : [];
      })
      .sort((a, b) => a.block.height - b.block.height || a.position - b.position);
  }

  async broadcast(signedTxHex: string): Promise<string> {
    const serialized = (signedTxHex.startsWith('0x') ? signedTxHex : `0x${signedTxHex}`).toLowerCase() as Hex;
    try {
      parseTransaction(serialized);
    } catch (error) {
      throw new BroadcastRefused('InvalidTransaction', error instanceof Error ? error.message : String(error));
    }
    try {
      await this.client.sendRawTransaction({ serializedTransaction: serialized });
    } catch (error) {
      throw new BroadcastRefused('TransactionRejected', error instanceof Error ? error.message : String(error));
    }
    // A transaction's hash is that of its signed form: the node's answer adds nothing to trust.
    return keccak256(serialized);
  }

  async close(): Promise<void> {}
}

type SwapLog = Log<bigint, number, false, undefined, true, typeof SWAP_CONTRACT_WATCH_ABI>;

/**
 * Whether a log says where it is, as every log of a mined block does: its contract, a block of the range asked
 * (number and hash), its transaction and its index. viem passes these through as the node sent them, and an
 * observation stored without them could never be placed or compared with a reorg.
 */
function isPlacedLog(log: SwapLog, range: BlockRange): boolean {
  const height = typeof log.blockNumber === 'bigint' ? Number(log.blockNumber) : Number.NaN;
  return (
    typeof log.address === 'string' &&
    isZeroXHex(log.address, 40) &&
    Number.isSafeInteger(height) &&
    height >= range.from &&
    height <= range.to &&
    typeof log.blockHash === 'string' &&
    isZeroXHex(log.blockHash, 64) &&
    typeof log.transactionHash === 'string' &&
    isZeroXHex(log.transactionHash, 64) &&
    Number.isSafeInteger(log.logIndex) &&
    log.logIndex >= 0
  );
}

function observationOf(log: SwapLog): ChainObservation | undefined {
  if (log.removed) return undefined;
  const orderId = normalizeOrderId(log.args.orderUUID.slice(2));
  if (orderId === undefined) return undefined;
  const base = {
    orderId,
    txId: log.transactionHash,
    position: log.logIndex,
    block: { height: Number(log.blockNumber), hash: log.blockHash },
  };
  const funder = log.args.funder.toLowerCase();
  switch (log.eventName) {
    case 'OrderFunded':
      return {
        ...base,
        kind: 'funding',
        amount: log.args.amount,
        refundHeight: Number(log.args.refundHeight),
        funder,
        claimer: log.args.claimer.toLowerCase(),
        token: log.args.token.toLowerCase(),
        paymentHash: log.args.paymentHash.slice(2).toLowerCase(),
      };
    case 'OrderClaimed':
      return {
        ...base,
        kind: 'claim',
        preimage: log.args.preimage.slice(2).toLowerCase(),
        amount: log.args.amount,
        funder,
      };
    case 'OrderRefunded':
      return { ...base, kind: 'refund', amount: log.args.amount, byAdmin: log.args.byAdmin, funder };
  }
}

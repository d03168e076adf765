/**
 * The chain a test Bitcoin node holds: real blocks (header, coinbase with its BIP-34 height and witness
 * commitment, proof of work at the regtest target) of real transactions, a mempool, mining on demand and
 * reorgs that replace blocks. Heights between the network's genesis and the chain's first block are not
 * held: a test starts its chain where the service's view of the network is.
 */
import { address as bitcoinAddress, Block, opcodes, payments, script, Transaction } from 'bitcoinjs-lib';
import { bitcoinJsNetwork } from '../../../src/domain/bitcoin.js';
import type { Network } from '../../../src/domain/markets.js';

/** The real genesis headers: their hashes are how a client tells the networks apart. */
const GENESIS_HEADERS: Record<Network, { timestamp: number; bits: number; nonce: number }> = {
  mainnet: { timestamp: 1231006505, bits: 0x1d00ffff, nonce: 2083236893 },
  testnet: { timestamp: 1296688602, bits: 0x1d00ffff, nonce: 414098458 },
  simnet: { timestamp: 1296688602, bits: 0x207fffff, nonce: 2 },
};
const GENESIS_MERKLE_ROOT = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

export function genesisHash(network: Network): string {
  const header = GENESIS_HEADERS[network];
  const block = new Block();
  block.version = 1;
  block.prevHash = Buffer.alloc(32);
  block.merkleRoot = Buffer.from(GENESIS_MERKLE_ROOT, 'hex').reverse();
  block.timestamp = header.timestamp;
  block.bits = header.bits;
  block.nonce = header.nonce;
  return block.getId();
}

const REGTEST_BITS = 0x207fffff;
const BLOCK_INTERVAL_SECONDS = 600;
const SUBSIDY = 312_500_000n;

export interface ChainBlock {
  readonly height: number;
  readonly hash: string;
  readonly block: Block;
  /** The coinbase first. */
  readonly txs: readonly Transaction[];
}

export interface Located {
  readonly tx: Transaction;
  /** Absent while in the mempool. */
  readonly block?: ChainBlock;
  readonly index?: number;
}

export interface Outspend {
  readonly spender: Located;
  readonly inputIndex: number;
}

export function txIdOfInput(input: Transaction['ins'][number]): string {
  return Buffer.from(input.hash).reverse().toString('hex');
}

export class BitcoinTestChain {
  readonly genesisHash: string;
  readonly blocks: ChainBlock[] = [];
  mempool: Transaction[] = [];
  /** Makes each mined block distinct, so that a replacement never has the hash of what it replaces. */
  private extraNonce = 0;

  constructor(
    readonly network: Network,
    readonly firstHeight: number,
  ) {
    this.genesisHash = genesisHash(network);
  }

  get tip(): ChainBlock | undefined {
    return this.blocks.at(-1);
  }

  get tipHeight(): number {
    return this.tip?.height ?? this.firstHeight - 1;
  }

  blockAtHeight(height: number): ChainBlock | undefined {
    return this.blocks[height - this.firstHeight];
  }

  blockByHash(hash: string): ChainBlock | undefined {
    return this.blocks.find((block) => block.hash === hash);
  }

  /**
   * Takes a transaction into the mempool; refuses one that is not a transaction or conflicts with a spend,
   * unless it replaces mempool transactions as Bitcoin Core does under BIP 125: every one replaced signals
   * replaceability, and the replacement pays a higher rate and more in fees than all of them together,
   * by at least the incremental relay fee (1 sat/vB) on its own size. The replaced ones leave the mempool.
   */
  submit(hex: string): Transaction {
    const tx = Transaction.fromHex(hex);
    const conflicts = new Map<string, Transaction>();
    for (const input of tx.ins) {
      const prevTxId = txIdOfInput(input);
      const spent = this.outspend(prevTxId, input.index);
      if (spent === undefined || spent.spender.tx.getId() === tx.getId()) continue;
      if (spent.spender.block !== undefined) throw new Error('txn-mempool-conflict');
      conflicts.set(spent.spender.tx.getId(), spent.spender.tx);
    }
    if (conflicts.size > 0) this.checkReplacement(tx, [...conflicts.values()]);
    this.mempool = this.mempool.filter((pending) => !conflicts.has(pending.getId()));
    if (this.find(tx.getId()) === undefined) this.mempool.push(tx);
    return tx;
  }

  /** What `tx` pays in fees; undefined when an output it spends is not on this chain. */
  fee(tx: Transaction): bigint | undefined {
    let spent = 0n;
    for (const input of tx.ins) {
      const prevout = this.prevout(input);
      if (prevout === undefined) return undefined;
      spent += prevout.value;
    }
    return spent - tx.outs.reduce((sum, output) => sum + output.value, 0n);
  }

  private checkReplacement(tx: Transaction, replaced: readonly Transaction[]): void {
    const signals = (original: Transaction): boolean => original.ins.some((input) => input.sequence < 0xfffffffe);
    if (!replaced.every(signals)) throw new Error('txn-mempool-conflict');
    const fee = this.fee(tx);
    const replacedFees = replaced.map((original) => this.fee(original));
    if (fee === undefined || replacedFees.some((replacedFee) => replacedFee === undefined)) {
      throw new Error('txn-mempool-conflict');
    }
    const replacedFee = replacedFees.reduce<bigint>((sum, each) => sum + (each ?? 0n), 0n);
    const higherRate = replaced.every(
      (original, index) =>
        fee * BigInt(original.virtualSize()) > (replacedFees[index] ?? 0n) * BigInt(tx.virtualSize()),
    );
    if (!higherRate || fee - replacedFee < BigInt(tx.virtualSize())) {
      throw new Error(`insufficient fee, rejecting replacement ${tx.getId()}`);
    }
  }

  /** Mines a block of the mempool (or of `txs`), its coinbase paying `coinbaseTo` when given. */
  mine(options: { txs?: readonly Transaction[]; coinbaseTo?: string } = {}): ChainBlock {
    const txs = options.txs ?? this.mempool;
    const minedIds = new Set(txs.map((tx) => tx.getId()));
    this.mempool = this.mempool.filter((tx) => !minedIds.has(tx.getId()));
    const height = this.tipHeight + 1;
    const coinbase = this.coinbase(height, txs, options.coinbaseTo);
    const all = [coinbase, ...txs];
    const block = new Block();
    block.version = 0x20000000;
    block.prevHash = this.tip === undefined ? Buffer.alloc(32) : Buffer.from(this.tip.block.getHash());
    block.merkleRoot = Block.calculateMerkleRoot(all);
    block.timestamp = GENESIS_HEADERS[this.network].timestamp + height * BLOCK_INTERVAL_SECONDS;
    block.bits = REGTEST_BITS;
    block.transactions = all;
    block.nonce = 0;
    while (!block.checkProofOfWork()) block.nonce++;
    const mined: ChainBlock = { height, hash: block.getId(), block, txs: all };
    this.blocks.push(mined);
    return mined;
  }

  /** Takes the top `depth` blocks off (their transactions back to the mempool, as a node does). */
  disconnect(depth: number): void {
    const removed = this.blocks.splice(this.blocks.length - depth, depth);
    const returned = removed.flatMap((block) => block.txs.slice(1));
    this.mempool = [...returned, ...this.mempool];
  }

  /** Every transaction, confirmed (in chain order) then in the mempool. */
  *all(): Generator<Located> {
    for (const block of this.blocks) {
      for (const [index, tx] of block.txs.entries()) yield { tx, block, index };
    }
    for (const tx of this.mempool) yield { tx };
  }

  find(txId: string): Located | undefined {
    for (const located of this.all()) if (located.tx.getId() === txId) return located;
    return undefined;
  }

  outspend(txId: string, outputIndex: number): Outspend | undefined {
    for (const located of this.all()) {
      const inputIndex = located.tx.ins.findIndex(
        (input) => input.index === outputIndex && txIdOfInput(input) === txId,
      );
      if (inputIndex >= 0) return { spender: located, inputIndex };
    }
    return undefined;
  }

  /** The output an input spends, when the chain holds it. */
  prevout(input: Transaction['ins'][number]): Transaction['outs'][number] | undefined {
    return this.find(txIdOfInput(input))?.tx.outs[input.index];
  }

  addressOf(outputScript: Uint8Array): string | undefined {
    try {
      return bitcoinAddress.fromOutputScript(outputScript, bitcoinJsNetwork(this.network));
    } catch {
      return undefined;
    }
  }

  /** Transactions paying `address` or spending from it: the mempool's first, then the newest confirmed. */
  addressTxs(address: string): Located[] {
    const touches = (tx: Transaction): boolean =>
      tx.outs.some((output) => this.addressOf(output.script) === address) ||
      tx.ins.some((input) => {
        const prevout = this.prevout(input);
        return prevout !== undefined && this.addressOf(prevout.script) === address;
      });
    const found = [...this.all()].filter((located) => touches(located.tx));
    const pending = found.filter((located) => located.block === undefined).reverse();
    const confirmed = found.filter((located) => located.block !== undefined).reverse();
    return [...pending, ...confirmed];
  }

  private coinbase(height: number, txs: readonly Transaction[], payTo: string | undefined): Transaction {
    const coinbase = new Transaction();
    coinbase.version = 2;
    const heightPush = script.compile([script.number.encode(height), script.number.encode(++this.extraNonce)]);
    coinbase.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, heightPush);
    const payee =
      payTo === undefined
        ? payments.embed({ data: [Buffer.from('lnswap test node')] }).output
        : bitcoinAddress.toOutputScript(payTo, bitcoinJsNetwork(this.network));
    if (payee === undefined) throw new Error('bitcoinjs produced no output script');
    coinbase.addOutput(payee, payTo === undefined ? 0n : SUBSIDY);
    const witnessReserved = Buffer.alloc(32);
    coinbase.setWitness(0, [witnessReserved]);
    // BIP-141: the coinbase commits to the witness merkle root (its own wtxid counted as zero) and the reserved value.
    const commitment = Buffer.concat([
      Buffer.from('aa21a9ed', 'hex'),
      Block.calculateMerkleRoot([coinbase, ...txs], true),
    ]);
    coinbase.addOutput(script.compile([opcodes.OP_RETURN, commitment]), 0n);
    return coinbase;
  }
}

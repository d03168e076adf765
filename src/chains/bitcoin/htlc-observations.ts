import { createHash } from 'node:crypto';
import { script, type Transaction } from 'bitcoinjs-lib';
import { outputScriptOfAddress } from '../../domain/bitcoin.js';
import type { Network } from '../../domain/markets.js';
import type { BlockRef, ChainObservation, WatchSet } from '../chain-backend.js';

/** A transaction of a block with its place in the block (the coinbase is 0). */
export interface PlacedTransaction {
  readonly tx: Transaction;
  readonly index: number;
}

/** Observation positions on Bitcoin: the transaction's index in the block times 2^16 plus the output or input index. */
const POSITION_STRIDE = 65_536;

/** HTLC outputs known so far, by `txid:index`: a spend of one is a claim or a refund. */
export type KnownOutputs = Map<string, WatchedOutput>;

interface WatchedOutput {
  readonly orderId: string;
  readonly paymentHash: string;
  readonly amount?: bigint;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The elements an input pushes: its witness, or the data pushes of a (P2SH) scriptSig. */
function pushedElements(input: Transaction['ins'][number]): Uint8Array[] {
  if (input.witness.length > 0) return input.witness;
  const chunks = script.decompile(input.script) ?? [];
  return chunks.filter((chunk): chunk is Uint8Array => chunk instanceof Uint8Array);
}

/** The claim path reveals the preimage: a pushed element whose SHA-256 is the payment hash. */
function revealedPreimage(input: Transaction['ins'][number], paymentHash: string): string | undefined {
  const preimage = pushedElements(input).find((element) => element.length === 32 && sha256Hex(element) === paymentHash);
  return preimage === undefined ? undefined : Buffer.from(preimage).toString('hex');
}

/** A watch set ready to match transactions against: read once per pass, whatever the number of blocks. */
export interface WatchIndex {
  /** Orders by the output script of their HTLC address, in the node's network. */
  readonly ordersByScript: ReadonlyMap<string, { orderId: string; paymentHash: string }>;
  /** HTLC outputs known so far; grows as fundings are matched, so a later spend of one is recognised. */
  readonly outputs: KnownOutputs;
}

/**
 * Output scripts of the watched addresses, decoded once (an order's address never changes); holds the addresses
 * of the last watch set only. Addresses of another network's prefixes decode to nothing: they can receive
 * nothing on this one.
 */
export class OutputScripts {
  private scripts = new Map<string, string | undefined>();

  constructor(private readonly network: Network) {}

  /** The scripts of exactly these addresses, as lowercase hex; forgets every other address. */
  of(addresses: readonly string[]): Map<string, string | undefined> {
    const scripts = new Map<string, string | undefined>();
    for (const address of addresses) {
      scripts.set(
        address,
        this.scripts.has(address) ? this.scripts.get(address) : outputScriptOfAddress(address, this.network),
      );
    }
    this.scripts = scripts;
    return scripts;
  }
}

/** The watch set as output scripts and outpoints. */
export function indexWatchSet(watch: WatchSet, outputScripts: OutputScripts): WatchIndex {
  const scripts = outputScripts.of(watch.orders.map((order) => order.payToAddress));
  const ordersByScript = new Map<string, { orderId: string; paymentHash: string }>();
  for (const order of watch.orders) {
    const outputScript = scripts.get(order.payToAddress);
    if (outputScript !== undefined)
      ordersByScript.set(outputScript, { orderId: order.orderId, paymentHash: order.paymentHash });
  }
  const paymentHashes = new Map(watch.orders.map((order) => [order.orderId, order.paymentHash]));
  const outputs: KnownOutputs = new Map();
  for (const output of watch.fundingOutputs) {
    const paymentHash = paymentHashes.get(output.orderId);
    if (paymentHash !== undefined)
      outputs.set(`${output.txId}:${output.outputIndex}`, { orderId: output.orderId, paymentHash });
  }
  return { ordersByScript, outputs };
}

/**
 * What the transactions of one block say about the watched orders, in chain order: outputs paying an order's
 * HTLC address (fundings), and spends of its HTLC outputs, a claim when the spend reveals the preimage and a
 * refund otherwise (the script leaves no third way). Outputs funded earlier in the same block, or in blocks
 * matched before with the same index, count too.
 */
export function observeBlock(
  block: BlockRef,
  txs: readonly PlacedTransaction[],
  index: WatchIndex,
): ChainObservation[] {
  const { ordersByScript, outputs: knownOutputs } = index;
  const observations: ChainObservation[] = [];
  for (const { tx, index: txIndex } of [...txs].sort((a, b) => a.index - b.index)) {
    const txId = tx.getId();
    tx.ins.forEach((input, inputIndex) => {
      const key = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
      const spent = knownOutputs.get(key);
      if (spent === undefined) return;
      const preimage = revealedPreimage(input, spent.paymentHash);
      const base = {
        orderId: spent.orderId,
        txId,
        position: txIndex * POSITION_STRIDE + inputIndex,
        block,
        ...(spent.amount === undefined ? {} : { amount: spent.amount }),
      };
      observations.push(preimage === undefined ? { kind: 'refund', ...base } : { kind: 'claim', ...base, preimage });
    });
    tx.outs.forEach((output, outputIndex) => {
      const order = ordersByScript.get(Buffer.from(output.script).toString('hex'));
      if (order === undefined) return;
      knownOutputs.set(`${txId}:${outputIndex}`, { ...order, amount: output.value });
      observations.push({
        kind: 'funding',
        orderId: order.orderId,
        txId,
        position: txIndex * POSITION_STRIDE + outputIndex,
        block,
        amount: output.value,
        outputIndex,
      });
    });
  }
  return observations;
}

import type { Transaction } from 'bitcoinjs-lib';
import { BitcoinTestChain, txIdOfInput, type Located, type Outspend } from '../../test/support/bitcoin-node/chain.js';

interface Indexes {
  readonly key: string;
  readonly byId: Map<string, Located>;
  /** `txid:vout` of each spent output. */
  readonly spends: Map<string, Outspend>;
  byAddress?: Map<string, Located[]>;
}

/**
 * The test node's chain with its look-ups indexed. The plain chain scans every transaction (hashing each) per
 * look-up, which is right for tests of a few transactions; the bench holds about 2,000, and a watcher reading the
 * history of 10,000 addresses per block would then measure the stand-in node instead of lnswap. The indexes are
 * rebuilt whenever the blocks or the mempool change; the bench only adds transactions and mines them.
 */
export class IndexedTestChain extends BitcoinTestChain {
  private readonly ids = new WeakMap<Transaction, string>();
  private indexes: Indexes | undefined;

  private idOf(tx: Transaction): string {
    let id = this.ids.get(tx);
    if (id === undefined) {
      id = tx.getId();
      this.ids.set(tx, id);
    }
    return id;
  }

  /** Changes whenever the bench changes the chain: it adds to the mempool, and mines. */
  private key(): string {
    const last = this.mempool.at(-1);
    return `${this.blocks.length}:${this.tip?.hash}:${this.mempool.length}:${last ? this.idOf(last) : ''}`;
  }

  private current(): Indexes {
    const key = this.key();
    if (this.indexes?.key === key) return this.indexes;
    const byId = new Map<string, Located>();
    const spends = new Map<string, Outspend>();
    for (const located of super.all()) {
      byId.set(this.idOf(located.tx), located);
      located.tx.ins.forEach((input, inputIndex) => {
        spends.set(`${txIdOfInput(input)}:${input.index}`, { spender: located, inputIndex });
      });
    }
    this.indexes = { key, byId, spends };
    return this.indexes;
  }

  /** A transaction taken into the mempool is added to the indexes instead of rebuilding them. */
  override submit(hex: string): Transaction {
    const indexes = this.current();
    const before = this.mempool.length;
    const tx = super.submit(hex);
    if (this.indexes === indexes && this.mempool.length === before + 1 && this.mempool.at(-1) === tx) {
      const located: Located = { tx };
      indexes.byId.set(this.idOf(tx), located);
      tx.ins.forEach((input, inputIndex) => {
        indexes.spends.set(`${txIdOfInput(input)}:${input.index}`, { spender: located, inputIndex });
      });
      this.indexes = { key: this.key(), byId: indexes.byId, spends: indexes.spends };
    }
    return tx;
  }

  override find(txId: string): Located | undefined {
    return this.current().byId.get(txId);
  }

  override outspend(txId: string, outputIndex: number): Outspend | undefined {
    return this.current().spends.get(`${txId}:${outputIndex}`);
  }

  override addressTxs(address: string): Located[] {
    const indexes = this.current();
    indexes.byAddress ??= this.addressIndex(indexes);
    const found = indexes.byAddress.get(address) ?? [];
    const pending = found.filter((located) => located.block === undefined).reverse();
    const confirmed = found.filter((located) => located.block !== undefined).reverse();
    return [...pending, ...confirmed];
  }

  private addressIndex(indexes: Indexes): Map<string, Located[]> {
    const byAddress = new Map<string, Located[]>();
    for (const located of indexes.byId.values()) {
      const touched = new Set<string>();
      for (const output of located.tx.outs) {
        const address = this.addressOf(output.script);
        if (address !== undefined) touched.add(address);
      }
      for (const input of located.tx.ins) {
        const prevout = indexes.byId.get(txIdOfInput(input))?.tx.outs[input.index];
        const address = prevout === undefined ? undefined : this.addressOf(prevout.script);
        if (address !== undefined) touched.add(address);
      }
      for (const address of touched) {
        const list = byAddress.get(address);
        if (list === undefined) byAddress.set(address, [located]);
        else list.push(located);
      }
    }
    return byAddress;
  }
}

import type { ChangeFeed } from '../store/change-feed.js';

/** Per entry, beyond the body and key: the Map slot, the strings' headers, the invoice-hash index. */
const ENTRY_OVERHEAD_BYTES = 120;

/**
 * Serialized answers about orders in a final state, least recently used first out, up to a byte
 * budget. A final order never changes, so its answers can be kept; what can still make them wrong
 * is reported by the store's change feed: an import (which may replace any order) clears all, and
 * a new order for an invoice drops the invoice-hash lookups of that invoice. While the feed cannot
 * vouch for the store (a lost PostgreSQL notification connection) every request reads through.
 */
interface Entry {
  readonly body: string;
  readonly invoiceHash: string | undefined;
}

export class FinalOrderResponses {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByInvoiceHash = new Map<string, Set<string>>();
  private usedBytes = 0;
  /** Bumped by every change: a read that began before one may hold what it replaced. */
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly changes: ChangeFeed,
    private readonly maxBytes: number,
  ) {
    this.unsubscribe = changes.subscribe((change) => {
      this.generation++;
      if (change.kind === 'anything') this.clear();
      else if (change.kind === 'orderCreated') this.forgetInvoiceHash(change.invoiceHash);
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** A mark to pass to `remember` for what is read from now on. */
  startRead(): number {
    return this.generation;
  }

  get(key: string): string | undefined {
    if (this.maxBytes === 0 || !this.changes.isCurrent()) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  /** Keeps `body` unless something changed since `readStartedAt`; `invoiceHash` files it for invalidation. */
  remember(key: string, body: string, readStartedAt: number, invoiceHash?: string): void {
    const bytes = entryBytes(key, body);
    if (readStartedAt !== this.generation || bytes > this.maxBytes || !this.changes.isCurrent()) return;
    this.delete(key);
    this.entries.set(key, { body, invoiceHash });
    this.usedBytes += bytes;
    if (invoiceHash !== undefined) {
      let keys = this.keysByInvoiceHash.get(invoiceHash);
      if (keys === undefined) this.keysByInvoiceHash.set(invoiceHash, (keys = new Set()));
      keys.add(key);
    }
    for (const oldest of this.entries.keys()) {
      if (this.usedBytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  stop(): void {
    this.unsubscribe();
    this.clear();
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.usedBytes -= entryBytes(key, entry.body);
    if (entry.invoiceHash === undefined) return;
    const keys = this.keysByInvoiceHash.get(entry.invoiceHash);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByInvoiceHash.delete(entry.invoiceHash);
  }

  private forgetInvoiceHash(invoiceHash: string): void {
    for (const key of [...(this.keysByInvoiceHash.get(invoiceHash) ?? [])]) this.delete(key);
  }

  private clear(): void {
    this.entries.clear();
    this.keysByInvoiceHash.clear();
    this.usedBytes = 0;
  }
}

function entryBytes(key: string, body: string): number {
  return key.length + body.length + ENTRY_OVERHEAD_BYTES;
}

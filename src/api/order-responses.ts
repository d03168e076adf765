import type { ChangeFeed, StoreChange } from '../store/change-feed.js';

/** Per entry, beyond the body and key: the Map slot, the strings' headers, the tag index. */
const ENTRY_OVERHEAD_BYTES = 120;

interface Entry {
  readonly body: string;
  /** What the answer depends on (`order:ID`, `invoice:HASH`, `configuration`): a change to any makes it stale. */
  readonly tags: readonly string[];
}

function tagChangedBy(change: Exclude<StoreChange, { kind: 'anything' }>): string {
  switch (change.kind) {
    case 'orderCreated':
      return `invoice:${change.invoiceHash}`;
    case 'orderMoved':
      return `order:${change.orderId}`;
    case 'configuration':
      return 'configuration';
  }
}

/**
 * Serialized answers about orders, least recently used first out, up to a byte budget. Wallets
 * poll the same orders over and over, and an answer only changes when the store reports a write
 * to what it depends on: a move of one of its orders, a new order for its invoice, the
 * configuration (for lookups filtered by ticker), or an import (which may replace any order, so it
 * clears everything). While the feed cannot vouch for the store (a
 * lost PostgreSQL notification connection) every request reads through.
 */
export class OrderResponses {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByTag = new Map<string, Set<string>>();
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
      else this.forgetTag(tagChangedBy(change));
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

  /** Keeps `body` unless something changed since `readStartedAt`. */
  remember(key: string, body: string, readStartedAt: number, tags: readonly string[]): void {
    const bytes = entryBytes(key, body);
    if (readStartedAt !== this.generation || bytes > this.maxBytes || !this.changes.isCurrent()) return;
    this.delete(key);
    this.entries.set(key, { body, tags });
    this.usedBytes += bytes;
    for (const tag of tags) {
      let keys = this.keysByTag.get(tag);
      if (keys === undefined) this.keysByTag.set(tag, (keys = new Set()));
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
    for (const tag of entry.tags) {
      const keys = this.keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByTag.delete(tag);
    }
  }

  private forgetTag(tag: string): void {
    for (const key of [...(this.keysByTag.get(tag) ?? [])]) this.delete(key);
  }

  private clear(): void {
    this.entries.clear();
    this.keysByTag.clear();
    this.usedBytes = 0;
  }
}

function entryBytes(key: string, body: string): number {
  return key.length + body.length + ENTRY_OVERHEAD_BYTES;
}

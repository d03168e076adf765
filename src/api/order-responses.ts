import type { ChangeFeed, StoreChange } from '../store/change-feed.js';

/** Per entry, beyond the body and key: the Map slot, the strings' headers, the tag index. */
const ENTRY_OVERHEAD_BYTES = 120;

/** Keys read through lately, one hash per slot: 256 KiB whatever the load. A power of two. */
const RECENT_READ_SLOTS = 1 << 16;

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
 *
 * An answer is kept from the second read of its key on, while the first is recent (its slot among the
 * last reads' not yet taken by another key). Under lookups spread over more orders than the budget holds,
 * keeping every answer read made each miss evict another entry, and the churn of kept strings through the
 * old generation cost the garbage collector more than the read itself; a polled order is kept at its
 * second poll.
 */
export class OrderResponses {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByTag = new Map<string, Set<string>>();
  private usedBytes = 0;
  private readonly recentReads = new Int32Array(RECENT_READ_SLOTS);
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
    if (!this.readBefore(key)) return;
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

  /** Whether `key` was read lately; marks it read. Two keys sharing a slot and hash only keep an answer early. */
  private readBefore(key: string): boolean {
    const hash = hashOf(key);
    const slot = hash & (RECENT_READ_SLOTS - 1);
    if (this.recentReads[slot] === hash) return true;
    this.recentReads[slot] = hash;
    return false;
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

/** FNV-1a over the key's UTF-16 code units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash;
}

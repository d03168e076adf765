import type { ChangeFeed, StoreChange } from '../store/change-feed.js';
import { KeysByTag } from './keys-by-tag.js';
import { RecentKeys } from './recent-keys.js';

/**
 * Heap an entry takes beyond its key's and body's characters, and per tag it carries (the tag's text, its place in
 * the tag index). Measured as the server's heap after a full collection with the cache full of 4,100 answers by id
 * (one tag each) or by invoice hash (2.5 tags on average) against the same load with the cache off: 1,250 and
 * 1,463 bytes an entry, for keys and bodies of 749 and 531 characters. So the budget is what the cache holds.
 */
export const ENTRY_OVERHEAD_BYTES = 220;
export const TAG_OVERHEAD_BYTES = 290;

/** What the budget is divided by to size the window of recent reads: about what one kept answer takes. */
const ANSWER_BYTES_FOR_WINDOW = 1024;

/** The shortest window of recent reads, for small budgets. */
const MIN_RECENT_READS = 256;

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
 * An answer is kept from the second read of its key on, while the first is recent. Under lookups spread over
 * more orders than the budget holds, keeping every answer read made each miss evict another entry, and the
 * churn of kept strings through the old generation cost the garbage collector more than the read itself; a
 * polled order is kept at its second poll. "Recent" is within about as many reads of other keys as the budget
 * holds answers (`RecentKeys`; 2Q sizes its queue of evicted keys by the cache the same way): a key read again
 * only after more other reads than that would have left the cache before its next read anyway.
 */
export class OrderResponses {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByTag = new KeysByTag();
  private usedBytes = 0;
  private readonly recentReads: RecentKeys;
  /** Bumped by every change: a read that began before one may hold what it replaced. */
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly changes: ChangeFeed,
    private readonly maxBytes: number,
  ) {
    this.recentReads = new RecentKeys(Math.max(MIN_RECENT_READS, Math.ceil(maxBytes / ANSWER_BYTES_FOR_WINDOW)));
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
    const bytes = entryBytes(key, body, tags);
    if (readStartedAt !== this.generation || bytes > this.maxBytes || !this.changes.isCurrent()) return;
    if (!this.recentReads.seenBefore(hashOf(key))) return;
    this.delete(key);
    this.entries.set(key, { body, tags });
    this.usedBytes += bytes;
    for (const tag of tags) this.keysByTag.add(tag, key);
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
    this.usedBytes -= entryBytes(key, entry.body, entry.tags);
    for (const tag of entry.tags) this.keysByTag.remove(tag, key);
  }

  private forgetTag(tag: string): void {
    for (const key of this.keysByTag.keysOf(tag)) this.delete(key);
  }

  private clear(): void {
    this.entries.clear();
    this.keysByTag.clear();
    this.usedBytes = 0;
  }
}

function entryBytes(key: string, body: string, tags: readonly string[]): number {
  return key.length + body.length + ENTRY_OVERHEAD_BYTES + tags.length * TAG_OVERHEAD_BYTES;
}

/** FNV-1a over the key's UTF-16 code units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash;
}

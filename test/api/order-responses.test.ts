import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENTRY_OVERHEAD_BYTES, OrderResponses, TAG_OVERHEAD_BYTES } from '../../src/api/order-responses.js';
import { ChangeListeners, type ChangeFeed, type StoreChange } from '../../src/store/change-feed.js';

/** A feed driven by the test: what a store reports, and whether it can vouch for caches. */
class ScriptedFeed implements ChangeFeed {
  readonly listeners = new ChangeListeners();
  current = true;
  subscribe = this.listeners.add.bind(this.listeners);
  isCurrent(): boolean {
    return this.current;
  }
  report(change: StoreChange): void {
    this.listeners.emit(change);
  }
}

const BODY = 'x'.repeat(880);
/** What an answer about one order takes: its key (`order N`), body, overhead and one tag. */
const ENTRY_BYTES = 'order 0'.length + BODY.length + ENTRY_OVERHEAD_BYTES + TAG_OVERHEAD_BYTES;
// Three such entries fit; a fourth does not.
const BUDGET = 3.5 * ENTRY_BYTES;

/** Two reads of `key` through the cache: an answer is kept from the second read of its key on. */
function readTwice(cache: OrderResponses, key: string, body: string, readStartedAt: number, tags: string[]): void {
  cache.remember(key, body, readStartedAt, tags);
  cache.remember(key, body, readStartedAt, tags);
}

function filled(feed: ScriptedFeed, count: number): OrderResponses {
  const cache = new OrderResponses(feed, BUDGET);
  for (let n = 0; n < count; n++) readTwice(cache, `order ${n}`, BODY, cache.startRead(), [`order:${n}`]);
  return cache;
}

describe('OrderResponses', () => {
  test('keeps answers within its byte budget, dropping the least recently used first', () => {
    const cache = filled(new ScriptedFeed(), 3);
    assert.equal(cache.get('order 0'), BODY);
    readTwice(cache, 'order 3', BODY, cache.startRead(), []);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('order 1'), undefined, 'the least recently used entry goes first');
    assert.equal(cache.get('order 0'), BODY, 'a read entry counts as recently used');
    assert.equal(cache.get('order 3'), BODY);
  });

  test('keeps an answer from the second read of its key on, not the first', () => {
    const cache = new OrderResponses(new ScriptedFeed(), BUDGET);
    cache.remember('order 0', BODY, cache.startRead(), ['order:0']);
    assert.equal(cache.get('order 0'), undefined);
    cache.remember('order 1', BODY, cache.startRead(), ['order:1']);
    cache.remember('order 0', BODY, cache.startRead(), ['order:0']);
    assert.equal(cache.get('order 0'), BODY);
    assert.equal(cache.get('order 1'), undefined);
  });

  test('keeps no answer whose key is read again only after more reads of other keys than the budget holds', () => {
    // The default budget holds about 16,000 answers; 65,536 reads of other keys lie between the two reads.
    const cache = new OrderResponses(new ScriptedFeed(), 16 * 1024 * 1024);
    cache.remember('order polled', BODY, cache.startRead(), []);
    for (let n = 0; n < 65_536; n++) cache.remember(`order ${n}`, BODY, cache.startRead(), []);
    cache.remember('order polled', BODY, cache.startRead(), []);
    assert.equal(cache.get('order polled'), undefined);
    cache.remember('order polled', BODY, cache.startRead(), []);
    assert.equal(cache.get('order polled'), BODY, 'read twice in a row, it is kept');
  });

  test('never keeps an answer larger than the whole budget', () => {
    const cache = new OrderResponses(new ScriptedFeed(), BUDGET);
    readTwice(cache, 'huge', 'y'.repeat(BUDGET), cache.startRead(), []);
    assert.equal(cache.size, 0);
  });

  test('a budget of 0 turns the cache off', () => {
    const cache = new OrderResponses(new ScriptedFeed(), 0);
    readTwice(cache, 'order 0', BODY, cache.startRead(), []);
    assert.equal(cache.get('order 0'), undefined);
  });

  test('an answer read before a change is not kept', () => {
    const feed = new ScriptedFeed();
    const cache = new OrderResponses(feed, BUDGET);
    const readStartedAt = cache.startRead();
    feed.report({ kind: 'configuration' });
    readTwice(cache, 'order 0', BODY, readStartedAt, []);
    assert.equal(cache.get('order 0'), undefined);
  });

  test('a new order drops the answers about its invoice, and only those', () => {
    const feed = new ScriptedFeed();
    const cache = new OrderResponses(feed, BUDGET);
    readTwice(cache, 'orders aa', BODY, cache.startRead(), ['order:1', 'invoice:aa']);
    readTwice(cache, 'orders bb', BODY, cache.startRead(), ['order:2', 'invoice:bb']);
    feed.report({ kind: 'orderCreated', invoiceHash: 'aa' });
    assert.equal(cache.get('orders aa'), undefined);
    assert.equal(cache.get('orders bb'), BODY);
  });

  test('a moved order drops every answer that shows it', () => {
    const feed = new ScriptedFeed();
    const cache = new OrderResponses(feed, BUDGET);
    readTwice(cache, 'order 1', BODY, cache.startRead(), ['order:1']);
    readTwice(cache, 'orders aa', BODY, cache.startRead(), ['order:1', 'order:2', 'invoice:aa']);
    readTwice(cache, 'order 2', BODY, cache.startRead(), ['order:2']);
    feed.report({ kind: 'orderMoved', orderId: '1' });
    assert.equal(cache.get('order 1'), undefined);
    assert.equal(cache.get('orders aa'), undefined);
    assert.equal(cache.get('order 2'), BODY);
  });

  test('a configuration change drops only the answers that depend on it', () => {
    const feed = new ScriptedFeed();
    const cache = new OrderResponses(feed, BUDGET);
    readTwice(cache, 'order 2', BODY, cache.startRead(), ['order:2']);
    readTwice(cache, 'orders aa BTC', BODY, cache.startRead(), ['invoice:aa', 'configuration']);
    feed.report({ kind: 'configuration' });
    assert.equal(cache.get('orders aa BTC'), undefined);
    assert.equal(cache.get('order 2'), BODY);
  });

  test('an import drops everything', () => {
    const feed = new ScriptedFeed();
    const cache = filled(feed, 3);
    feed.report({ kind: 'anything' });
    assert.equal(cache.size, 0);
  });

  test('reads through while the feed cannot vouch for the store', () => {
    const feed = new ScriptedFeed();
    const cache = filled(feed, 1);
    feed.current = false;
    assert.equal(cache.get('order 0'), undefined);
    readTwice(cache, 'order 1', BODY, cache.startRead(), []);
    feed.current = true;
    assert.equal(cache.get('order 1'), undefined);
    assert.equal(cache.get('order 0'), BODY);
  });

  test('stops listening when stopped', () => {
    const feed = new ScriptedFeed();
    const cache = filled(feed, 1);
    cache.stop();
    assert.equal(feed.listeners.size, 0);
    assert.equal(cache.size, 0);
  });
});

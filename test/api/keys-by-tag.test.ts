import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeysByTag } from '../../src/api/keys-by-tag.js';

describe('KeysByTag', () => {
  test('gives the keys of a tag, one or many, each once', () => {
    const index = new KeysByTag();
    index.add('order:1', 'order 1');
    index.add('order:1', 'order 1');
    assert.deepStrictEqual(index.keysOf('order:1'), ['order 1']);
    index.add('order:1', 'transactions 1');
    index.add('order:1', 'order 1');
    assert.deepStrictEqual(index.keysOf('order:1').sort(), ['order 1', 'transactions 1']);
    assert.deepStrictEqual(index.keysOf('order:2'), []);
  });

  test('forgets removed keys, down to none, and leaves other tags alone', () => {
    const index = new KeysByTag();
    for (const key of ['a', 'b', 'c']) index.add('invoice:x', key);
    index.add('order:1', 'a');
    index.remove('invoice:x', 'b');
    assert.deepStrictEqual(index.keysOf('invoice:x').sort(), ['a', 'c']);
    index.remove('invoice:x', 'a');
    assert.deepStrictEqual(index.keysOf('invoice:x'), ['c']);
    index.remove('invoice:x', 'unknown');
    index.remove('invoice:x', 'c');
    assert.deepStrictEqual(index.keysOf('invoice:x'), []);
    index.add('invoice:x', 'd');
    assert.deepStrictEqual(index.keysOf('invoice:x'), ['d']);
    assert.deepStrictEqual(index.keysOf('order:1'), ['a']);
  });

  test('the keys given are a copy: removing while walking them misses none', () => {
    const index = new KeysByTag();
    for (const key of ['a', 'b', 'c']) index.add('t', key);
    const walked: string[] = [];
    for (const key of index.keysOf('t')) {
      walked.push(key);
      index.remove('t', key);
    }
    assert.deepStrictEqual(walked.sort(), ['a', 'b', 'c']);
    assert.deepStrictEqual(index.keysOf('t'), []);
  });

  test('clear forgets every tag', () => {
    const index = new KeysByTag();
    index.add('t', 'a');
    index.add('u', 'b');
    index.add('u', 'c');
    index.clear();
    assert.deepStrictEqual([index.keysOf('t'), index.keysOf('u')], [[], []]);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressKey, parseTrustProxy } from '../../src/ws/client-address.js';

test('--trust-proxy takes false, a hop count or proxy addresses, and refuses true, which would believe the client', () => {
  assert.equal(parseTrustProxy('false'), false);
  assert.equal(parseTrustProxy('0'), false);
  assert.equal(parseTrustProxy('2'), 2);
  assert.deepEqual(parseTrustProxy('10.0.0.1, 192.168.0.0/16,loopback'), ['10.0.0.1', '192.168.0.0/16', 'loopback']);
  assert.deepEqual(parseTrustProxy('fd00::/8'), ['fd00::/8']);
  assert.match((parseTrustProxy('true') as { invalid: string }).invalid, /number of proxies/);
  assert.ok('invalid' in (parseTrustProxy('10.0.0.300') as object));
  assert.ok('invalid' in (parseTrustProxy('10.0.0.0/40') as object));
  assert.ok('invalid' in (parseTrustProxy('example.com') as object));
});

test('address keys: only IP addresses, each written one way, IPv6 by its /56', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('2001:DB8:0:1ff:0:0:0:1'), '2001:db8:0:100::/56');
  assert.equal(addressKey('2001:db8:0:1aa::77'), '2001:db8:0:100::/56', 'one /56, one key');
  assert.notEqual(addressKey('2001:db8:0:200::1'), addressKey('2001:db8:0:100::1'));
  for (const text of [
    '',
    'unknown',
    '127.1',
    '0x7f.0.0.1',
    ' 203.0.113.7',
    '203.0.113.7:443',
    'x'.repeat(3_000),
    undefined,
  ]) {
    assert.equal(addressKey(text), undefined, String(text).slice(0, 20));
  }
});

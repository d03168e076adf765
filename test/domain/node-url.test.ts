import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeUrlForLog } from '../../src/domain/node-url.js';

test('a node URL is logged with its scheme, host and port only', () => {
  const cases: [string, string][] = [
    ['https://mainnet.infura.io/v3/0123456789abcdef', 'https://mainnet.infura.io'],
    ['https://eth.example:8545/?apikey=secret#frag', 'https://eth.example:8545'],
    ['http://rpcuser:rpcpassword@127.0.0.1:8332/wallet/hot', 'http://127.0.0.1:8332'],
    ['https://[::1]:3000/api', 'https://[::1]:3000'],
    ['not a url with a secret', '(not a URL)'],
  ];
  for (const [url, logged] of cases) assert.equal(nodeUrlForLog(url), logged, url);
});

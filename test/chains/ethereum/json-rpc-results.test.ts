/**
 * The form each JSON-RPC result must have before viem reads it: what honest nodes answer passes, `null`, `"0x"`,
 * numbers, objects and oversized numbers do not, and a method lnswap reads no result of is left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultFault } from '../../../src/chains/ethereum/json-rpc-results.js';

const HASH = `0x${'ab'.repeat(32)}`;

test('honest results pass', () => {
  const honest: [string, unknown][] = [
    ['eth_chainId', '0x7a69'],
    ['eth_blockNumber', '0x0'],
    ['eth_getCode', '0x'],
    ['eth_getCode', '0x6080604052'],
    ['eth_call', `0x${'00'.repeat(31)}14`],
    ['eth_sendRawTransaction', HASH],
    ['eth_getLogs', []],
    ['eth_getLogs', [{ address: '0x00', topics: [] }]],
    ['eth_getBlockByNumber', null],
    ['eth_getBlockByNumber', { number: '0x1', hash: HASH }],
    ['eth_getTransactionReceipt', null],
    ['eth_feeHistory', { baseFeePerGas: [] }],
    ['anvil_mine', null],
  ];
  for (const [method, result] of honest)
    assert.equal(resultFault(method, result), undefined, `${method} ${String(result)}`);
});

test('null, "0x", numbers, objects, odd hex and 10 MB of digits are refused, each saying what the answer is not', () => {
  const tenMegabytes = `0x${'ab'.repeat(5 * 2 ** 20)}`;
  const wrong: [string, unknown, string][] = [
    ['eth_chainId', null, 'not a number (0x and up to 64 hex digits)'],
    ['eth_chainId', '0x', 'not a number (0x and up to 64 hex digits)'],
    ['eth_chainId', 31_337, 'not a number (0x and up to 64 hex digits)'],
    ['eth_blockNumber', tenMegabytes, 'not a number (0x and up to 64 hex digits)'],
    ['eth_blockNumber', `0x${'f'.repeat(65)}`, 'not a number (0x and up to 64 hex digits)'],
    ['eth_getCode', null, 'not hex data (0x and whole bytes)'],
    ['eth_getCode', 12_345, 'not hex data (0x and whole bytes)'],
    ['eth_getCode', '0x608', 'not hex data (0x and whole bytes)'],
    ['eth_getCode', '6080', 'not hex data (0x and whole bytes)'],
    ['eth_call', { data: '0x' }, 'not hex data (0x and whole bytes)'],
    ['eth_sendRawTransaction', '0x', 'not a 32-byte hash'],
    ['eth_getLogs', null, 'not a list of objects'],
    ['eth_getLogs', '0x', 'not a list of objects'],
    ['eth_getLogs', [null], 'not a list of objects'],
    ['eth_getLogs', [5], 'not a list of objects'],
    ['eth_getBlockByNumber', '0x', 'neither an object nor null'],
    ['eth_getBlockByNumber', [], 'neither an object nor null'],
    ['eth_feeHistory', null, 'not an object'],
  ];
  for (const [method, result, fault] of wrong) {
    assert.equal(resultFault(method, result), fault, `${method} ${String(result).slice(0, 20)}`);
  }
});

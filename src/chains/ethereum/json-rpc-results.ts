/**
 * The form of each JSON-RPC method's result that lnswap reads, as the Ethereum execution API specifies it. viem
 * takes a node's results on faith: a `null` code reads as code, a number as a chain id, and its formatters
 * throw plain errors (or none) on the rest. Held here, at the transport, every caller (the service, the
 * provider daemon, the commands) gets a named `badAnswer` instead.
 */

import { isZeroXHex } from '../../domain/hex.js';

/** A number: `0x` and at most 64 hex digits (nothing the service reads is wider than 256 bits). */
const QUANTITY = /^0x[0-9a-f]{1,64}$/i;
/** Bytes: `0x` and whole bytes of hex. */
const DATA = /^0x(?:[0-9a-f]{2})*$/i;

type ResultForm = 'quantity' | 'data' | 'hash' | 'objects' | 'objectOrNull' | 'object';

const RESULT_FORMS: Readonly<Record<string, ResultForm>> = {
  eth_chainId: 'quantity',
  eth_blockNumber: 'quantity',
  eth_gasPrice: 'quantity',
  eth_maxPriorityFeePerGas: 'quantity',
  eth_estimateGas: 'quantity',
  eth_getBalance: 'quantity',
  eth_getTransactionCount: 'quantity',
  eth_getCode: 'data',
  eth_call: 'data',
  eth_sendRawTransaction: 'hash',
  eth_getLogs: 'objects',
  eth_getBlockByNumber: 'objectOrNull',
  eth_getBlockByHash: 'objectOrNull',
  eth_getTransactionByHash: 'objectOrNull',
  eth_getTransactionReceipt: 'objectOrNull',
  eth_feeHistory: 'object',
};

const FAULTS: Readonly<Record<ResultForm, string>> = {
  quantity: 'not a number (0x and up to 64 hex digits)',
  data: 'not hex data (0x and whole bytes)',
  hash: 'not a 32-byte hash',
  objects: 'not a list of objects',
  objectOrNull: 'neither an object nor null',
  object: 'not an object',
};

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

function fits(form: ResultForm, result: unknown): boolean {
  switch (form) {
    case 'quantity':
      return typeof result === 'string' && QUANTITY.test(result);
    case 'data':
      return typeof result === 'string' && DATA.test(result);
    case 'hash':
      return typeof result === 'string' && isZeroXHex(result, 64);
    case 'objects':
      return Array.isArray(result) && result.every(isObject);
    case 'objectOrNull':
      return result === null || isObject(result);
    case 'object':
      return isObject(result);
  }
}

/**
 * What is wrong with `result` as an answer to `method`; undefined when it has the method's form, or when the
 * method is not one lnswap reads a result of (the node's own extensions: `anvil_mine`, `evm_snapshot`).
 */
export function resultFault(method: string, result: unknown): string | undefined {
  const form = RESULT_FORMS[method];
  if (form === undefined || fits(form, result)) return undefined;
  return FAULTS[form];
}

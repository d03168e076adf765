import {
  type AbiFunction,
  checksumAddress,
  concatHex,
  decodeFunctionData,
  encodeAbiParameters,
  getAbiItem,
  toFunctionSelector,
} from 'viem';
import { isHexOfLength, isZeroXHex } from './hex.js';
import { normalizeOrderId, orderIdToBytes16 } from './order-ids.js';

/** The deployed swap contract's interface; its signatures fix the function selectors clients rely on. */
export const SWAP_CONTRACT_ABI = [
  {
    type: 'function',
    name: 'fund',
    stateMutability: 'payable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'paymentHash', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'claim',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'preimage', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'refund',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'orderUUID', type: 'bytes16' }],
    outputs: [],
  },
] as const;

function bytes32(hex: string, what: string): `0x${string}` {
  if (!isHexOfLength(hex, 64)) throw new Error(`${what} must be 64 hex digits`);
  return `0x${hex.toLowerCase()}`;
}

type SwapFunctionName = (typeof SWAP_CONTRACT_ABI)[number]['name'];

/**
 * viem's `encodeFunctionData` finds the function in the ABI and hashes its signature on every call; the fund
 * details and refund routes encode per request, so each function's selector is found and hashed once.
 */
function calldataEncoder(name: SwapFunctionName): (args: readonly `0x${string}`[]) => `0x${string}` {
  const abiFunction = getAbiItem({ abi: SWAP_CONTRACT_ABI, name }) as AbiFunction;
  const selector = toFunctionSelector(abiFunction);
  return (args) => concatHex([selector, encodeAbiParameters(abiFunction.inputs, args)]);
}

const encodeFund = calldataEncoder('fund');
const encodeClaim = calldataEncoder('claim');
const encodeRefund = calldataEncoder('refund');

export function encodeFundCalldata(orderId: string, paymentHash: string): `0x${string}` {
  return encodeFund([orderIdToBytes16(orderId), bytes32(paymentHash, 'paymentHash')]);
}

export function encodeClaimCalldata(orderId: string, preimage: string): `0x${string}` {
  return encodeClaim([orderIdToBytes16(orderId), bytes32(preimage, 'preimage')]);
}

export function encodeRefundCalldata(orderId: string): `0x${string}` {
  return encodeRefund([orderIdToBytes16(orderId)]);
}

/**
 * Reads a maker's `fund` calldata. Strict: only the canonical encoding counts (no trailing bytes,
 * no junk in the padding), so what the service stores is exactly what the contract will see.
 */
export function decodeFundCalldata(data: string): { orderId: string; paymentHash: string } | undefined {
  if (typeof data !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return undefined;
  try {
    const canonical = data.toLowerCase() as `0x${string}`;
    const call = decodeFunctionData({ abi: SWAP_CONTRACT_ABI, data: canonical });
    if (call.functionName !== 'fund') return undefined;
    const [orderUUID, paymentHash] = call.args;
    const orderId = normalizeOrderId(orderUUID.slice(2));
    const hashHex = paymentHash.slice(2).toLowerCase();
    if (orderId === undefined || encodeFundCalldata(orderId, hashHex) !== canonical) return undefined;
    return { orderId, paymentHash: hashHex };
  } catch {
    return undefined;
  }
}

/**
 * 0x and 40 hex digits. All-lower or all-upper hex carries no checksum; a mixed-case address
 * must match its EIP-55 checksum, which catches a mistyped character.
 */
export function isEthereumAddress(address: string): boolean {
  if (typeof address !== 'string' || !isZeroXHex(address, 40)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return checksumAddress(address as `0x${string}`) === address;
}

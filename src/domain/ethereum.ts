import {
  type AbiFunction,
  type AbiParameter,
  checksumAddress,
  concatHex,
  decodeFunctionData,
  encodeAbiParameters,
  getAbiItem,
  toFunctionSelector,
} from 'viem';
import { isHexOfLength, isZeroXHex } from './hex.js';
import { normalizeOrderId, orderIdToBytes16 } from './order-ids.js';

/**
 * The swap contract's interface, second version (docs/decisions.md): money sits in slots keyed by
 * (order id, funder), so nobody else's funding can touch a user's slot. Its signatures fix the function
 * selectors clients rely on.
 */
export const SWAP_CONTRACT_ABI = [
  {
    type: 'function',
    name: 'fund',
    stateMutability: 'payable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'paymentHash', type: 'bytes32' },
      { name: 'claimer', type: 'address' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'fundToken',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'paymentHash', type: 'bytes32' },
      { name: 'claimer', type: 'address' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'claim',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'funder', type: 'address' },
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
  {
    type: 'function',
    name: 'adminRefund',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'funder', type: 'address' },
    ],
    outputs: [],
  },
] as const;

/**
 * The getter of the contract's public `slots` mapping, (orderUUID, funder) to what the slot holds now, the same in
 * every version. A mapping's keys have no names in the compiled ABI.
 */
export const SWAP_CONTRACT_SLOTS_ABI = [
  {
    type: 'function',
    name: 'slots',
    stateMutability: 'view',
    inputs: [
      { name: '', type: 'bytes16' },
      { name: '', type: 'address' },
    ],
    outputs: [
      { name: 'paymentHash', type: 'bytes32' },
      { name: 'claimer', type: 'address' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'refundHeight', type: 'uint256' },
      { name: 'state', type: 'uint8' },
    ],
  },
] as const;

/** ERC-20's `approve`: a token order's funder lets the swap contract take the amount with `transferFrom`. */
export const ERC20_APPROVE_ABI = [
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

/** The asset of an ether slot, as the contract's events spell it. */
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

type Hex = `0x${string}`;

function bytes32(hex: string, what: string): Hex {
  if (!isHexOfLength(hex, 64)) throw new Error(`${what} must be 64 hex digits`);
  return `0x${hex.toLowerCase()}`;
}

function address(text: string, what: string): Hex {
  if (!isEthereumAddress(text)) throw new Error(`${what} must be an Ethereum address`);
  return text.toLowerCase() as Hex;
}

function uint256(amount: bigint, what: string): bigint {
  if (amount < 0n || amount >= 2n ** 256n) throw new Error(`${what} must fit a uint256`);
  return amount;
}

/**
 * viem's `encodeFunctionData` finds the function in the ABI and hashes its signature on every call; the fund
 * details and refund routes encode per request, so each function's selector is found and hashed once.
 */
function calldataEncoder(abi: readonly AbiFunction[], name: string): (args: readonly (Hex | bigint)[]) => Hex {
  const abiFunction = getAbiItem({ abi, name }) as AbiFunction;
  const selector = toFunctionSelector(abiFunction);
  // The inputs are known only at run time, so the values' type is `readonly unknown[]` either way; naming the type
  // argument spares the checker inferring it through abitype's recursive tuple types, one of the type check's
  // costliest inferences.
  return (args) => concatHex([selector, encodeAbiParameters<readonly AbiParameter[]>(abiFunction.inputs, args)]);
}

const encodeFund = calldataEncoder(SWAP_CONTRACT_ABI, 'fund');
const encodeFundToken = calldataEncoder(SWAP_CONTRACT_ABI, 'fundToken');
const encodeClaim = calldataEncoder(SWAP_CONTRACT_ABI, 'claim');
const encodeRefund = calldataEncoder(SWAP_CONTRACT_ABI, 'refund');
const encodeAdminRefund = calldataEncoder(SWAP_CONTRACT_ABI, 'adminRefund');
const encodeApprove = calldataEncoder(ERC20_APPROVE_ABI, 'approve');

/** `fund(orderUUID, paymentHash, claimer)`: locks ether in the sender's slot of the order. */
export function encodeFundCalldata(orderId: string, paymentHash: string, claimer: string): Hex {
  return encodeFund([orderIdToBytes16(orderId), bytes32(paymentHash, 'paymentHash'), address(claimer, 'claimer')]);
}

/** `fundToken(orderUUID, paymentHash, claimer, token, amount)`: the same in an ERC-20 token, after `approve`. */
export function encodeFundTokenCalldata(
  orderId: string,
  paymentHash: string,
  claimer: string,
  token: string,
  amount: bigint,
): Hex {
  return encodeFundToken([
    orderIdToBytes16(orderId),
    bytes32(paymentHash, 'paymentHash'),
    address(claimer, 'claimer'),
    address(token, 'token'),
    uint256(amount, 'amount'),
  ]);
}

/** `claim(orderUUID, funder, preimage)`: anyone may send it; it pays the slot's claimer. */
export function encodeClaimCalldata(orderId: string, funder: string, preimage: string): Hex {
  return encodeClaim([orderIdToBytes16(orderId), address(funder, 'funder'), bytes32(preimage, 'preimage')]);
}

/** `refund(orderUUID)`: the sender's own slot, after its refund height. The same data for every funder. */
export function encodeRefundCalldata(orderId: string): Hex {
  return encodeRefund([orderIdToBytes16(orderId)]);
}

/** `adminRefund(orderUUID, funder)`: the contract's owner returns one funder's slot at any time before a claim. */
export function encodeAdminRefundCalldata(orderId: string, funder: string): Hex {
  return encodeAdminRefund([orderIdToBytes16(orderId), address(funder, 'funder')]);
}

/** ERC-20 `approve(spender, amount)`. */
export function encodeApproveCalldata(spender: string, amount: bigint): Hex {
  return encodeApprove([address(spender, 'spender'), uint256(amount, 'amount')]);
}

/** A funding call read back from its calldata; addresses and hashes lowercase, without `0x` only for the hash. */
export type FundingCall =
  | { readonly functionName: 'fund'; readonly orderId: string; readonly paymentHash: string; readonly claimer: string }
  | {
      readonly functionName: 'fundToken';
      readonly orderId: string;
      readonly paymentHash: string;
      readonly claimer: string;
      readonly token: string;
      readonly amount: bigint;
    };

/**
 * Reads a maker's `fund` or `fundToken` calldata. Strict: only the canonical encoding counts (no trailing
 * bytes, no junk in the padding), so what the service checks is exactly what the contract will see.
 */
export function decodeFundingCalldata(data: string): FundingCall | undefined {
  if (typeof data !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return undefined;
  try {
    const canonical = data.toLowerCase() as Hex;
    const call = decodeFunctionData({ abi: SWAP_CONTRACT_ABI, data: canonical });
    if (call.functionName === 'fund') {
      const [orderUUID, paymentHash, claimer] = call.args;
      const orderId = normalizeOrderId(orderUUID.slice(2));
      const hashHex = paymentHash.slice(2).toLowerCase();
      if (orderId === undefined || encodeFundCalldata(orderId, hashHex, claimer) !== canonical) return undefined;
      return { functionName: 'fund', orderId, paymentHash: hashHex, claimer: claimer.toLowerCase() };
    }
    if (call.functionName === 'fundToken') {
      const [orderUUID, paymentHash, claimer, token, amount] = call.args;
      const orderId = normalizeOrderId(orderUUID.slice(2));
      const hashHex = paymentHash.slice(2).toLowerCase();
      if (orderId === undefined || encodeFundTokenCalldata(orderId, hashHex, claimer, token, amount) !== canonical) {
        return undefined;
      }
      return {
        functionName: 'fundToken',
        orderId,
        paymentHash: hashHex,
        claimer: claimer.toLowerCase(),
        token: token.toLowerCase(),
        amount,
      };
    }
    return undefined;
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

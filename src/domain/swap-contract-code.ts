/**
 * Recognising lnswap's swap contract by its runtime code, the one thing a node cannot make up about an address
 * without it being so: the code is what runs when a wallet funds it. A deployment's code is a version's code as
 * compiled from contracts/ byte for byte, CBOR metadata included, except where the constructor wrote the
 * immutables (`owner`, `refundDelay`); those rooms are read, not compared. Anything else (a look-alike with the
 * same functions, a proxy or delegation in front of a genuine contract, a genuine contract with one byte changed)
 * is another contract, however it answers calls.
 */
import type { SwapContractVersion } from './order.js';
import { SWAP_CONTRACT_RUNTIME_TEMPLATES, type SwapContractRuntimeTemplate } from './swap-contract-runtime-code.js';

/** A deployment of lnswap's swap contract, as its code says. */
export interface SwapContractCode {
  readonly version: SwapContractVersion;
  /** Blocks from a slot's first funding until its funder may take it back (`refund`). */
  readonly refundDelayBlocks: bigint;
  /** The operator (lower case), who alone may `adminRefund` a slot to its funder early. */
  readonly owner: `0x${string}`;
}

/**
 * Why code is not lnswap's swap contract: `NoCode` (an account without code), `UnreadableCode` (an answer that
 * is not code: not a string of hex bytes), `OtherCode` (no version's code), `InvalidImmutables` (a version's code
 * with immutables no constructor writes: rooms of one immutable that disagree, an owner that is not an address, a
 * zero refund delay).
 */
export type SwapContractCodeMismatchKind = 'NoCode' | 'UnreadableCode' | 'OtherCode' | 'InvalidImmutables';

export interface SwapContractCodeMismatch {
  readonly mismatch: SwapContractCodeMismatchKind;
  /** In words, for a person: what the code is instead, never the code itself. */
  readonly reason: string;
}

const CODE_PATTERN = /^0x(?:[0-9a-f]{2})*$/u;
const EIP_1167_PROXY = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/u;
const EIP_7702_DELEGATION = /^0xef0100([0-9a-f]{40})$/u;
const WORD_BYTES = 32;
const ADDRESS_PADDING = '0'.repeat(24);

/**
 * The swap contract deployment whose runtime code `code` is (an `eth_getCode` answer, taken as it came), or why it
 * is none.
 *
 * @example
 * const code = await publicClient.getCode({ address });
 * const read = readSwapContractCode(code);
 * if ('mismatch' in read) throw new Error(`not lnswap's swap contract: ${read.reason}`);
 * read.version; // 3
 * read.refundDelayBlocks; // 5760n
 */
export function readSwapContractCode(code: unknown): SwapContractCode | SwapContractCodeMismatch {
  if (code === undefined || code === '0x') return mismatch('NoCode', 'there is no code at the address');
  if (typeof code !== 'string') return mismatch('UnreadableCode', `the node answered ${typeof code}, not code`);
  const hex = code.toLowerCase();
  if (!CODE_PATTERN.test(hex)) return mismatch('UnreadableCode', 'the node answered something that is not hex bytes');
  const proxy = EIP_1167_PROXY.exec(hex) ?? EIP_7702_DELEGATION.exec(hex);
  if (proxy !== null) {
    return mismatch('OtherCode', `the code forwards every call to 0x${proxy[1]}, whose code can change what runs`);
  }
  const sameLength = SWAP_CONTRACT_RUNTIME_TEMPLATES.filter((template) => template.code.length === hex.length);
  for (const template of sameLength) {
    if (firstDifference(hex, template) === undefined) return deployment(hex, template);
  }
  const [nearest] = sameLength;
  if (nearest !== undefined) {
    return mismatch(
      'OtherCode',
      `the code differs from the swap contract version ${nearest.version}'s at byte ${firstDifference(hex, nearest)}`,
    );
  }
  return mismatch('OtherCode', `its ${(hex.length - 2) / 2} bytes of code are no version of the swap contract`);
}

function mismatch(kind: SwapContractCodeMismatchKind, reason: string): SwapContractCodeMismatch {
  return { mismatch: kind, reason };
}

/** Every immutable's room of `template`, in code order. */
function roomsOf(template: SwapContractRuntimeTemplate) {
  return [...template.immutables.owner, ...template.immutables.refundDelay].sort((a, b) => a.start - b.start);
}

/** The first byte, outside the immutables' rooms, where `hex` (as long as the template's) differs from it. */
function firstDifference(hex: string, template: SwapContractRuntimeTemplate): number | undefined {
  let from = 0;
  for (const room of [...roomsOf(template), { start: (hex.length - 2) / 2, length: 0 }]) {
    const [start, end] = [2 + 2 * from, 2 + 2 * room.start];
    if (hex.slice(start, end) !== template.code.slice(start, end)) {
      for (let at = start; at < end; at += 2) {
        if (hex.slice(at, at + 2) !== template.code.slice(at, at + 2)) return (at - 2) / 2;
      }
    }
    from = room.start + room.length;
  }
  return undefined;
}

/** The one value written into every room of an immutable, or undefined when its rooms disagree. */
function immutableValue(hex: string, rooms: readonly { start: number; length: number }[]): string | undefined {
  const values = new Set(rooms.map(({ start, length }) => hex.slice(2 + 2 * start, 2 + 2 * (start + length))));
  const [value] = values;
  return values.size === 1 && value?.length === 2 * WORD_BYTES ? value : undefined;
}

function deployment(hex: string, template: SwapContractRuntimeTemplate): SwapContractCode | SwapContractCodeMismatch {
  const owner = immutableValue(hex, template.immutables.owner);
  const refundDelay = immutableValue(hex, template.immutables.refundDelay);
  if (owner === undefined || refundDelay === undefined) {
    return mismatch('InvalidImmutables', 'the code holds two values for one immutable, which no constructor writes');
  }
  if (!owner.startsWith(ADDRESS_PADDING)) {
    return mismatch('InvalidImmutables', 'the owner written into the code is not an address');
  }
  const refundDelayBlocks = BigInt(`0x${refundDelay}`);
  if (refundDelayBlocks === 0n) {
    return mismatch(
      'InvalidImmutables',
      'the refund delay written into the code is zero, which the constructor refuses',
    );
  }
  return { version: template.version, refundDelayBlocks, owner: `0x${owner.slice(ADDRESS_PADDING.length)}` };
}

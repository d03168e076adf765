import { decodeFunctionData, encodeFunctionData, recoverTypedDataAddress, type Hex } from 'viem';
import { isEthereumAddress } from './ethereum.js';
import { isZeroXHex } from './hex.js';
import { orderIdToBytes16 } from './order-ids.js';

/**
 * The claimer of a slot of the third swap contract giving up its claim: with this signature anyone may send
 * `refundCooperative(orderUUID, funder, signature)`, which pays the slot's funder at once (docs/swap-contract.md).
 */
export interface CooperativeRefundSignature {
  /** Lowercase 0x address: the slot is (order, funder). */
  readonly funder: string;
  /** The claimer's 65-byte (r, s, v) EIP-712 signature, lowercase 0x hex. */
  readonly signature: Hex;
}

/** What a signature binds besides the slot: the contract and its chain (the EIP-712 domain). */
export interface CooperativeRefundDomain {
  readonly chainId: number;
  readonly verifyingContract: string;
}

/** The EIP-712 type the contract hashes. */
export const COOPERATIVE_REFUND_TYPES = {
  CooperativeRefund: [
    { name: 'orderUUID', type: 'bytes16' },
    { name: 'funder', type: 'address' },
  ],
} as const;

/** The third version's `refundCooperative`, selector 0xd11f56ec. */
const REFUND_COOPERATIVE_ABI = [
  {
    type: 'function',
    name: 'refundCooperative',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'orderUUID', type: 'bytes16' },
      { name: 'funder', type: 'address' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [],
  },
] as const;

/** Half the order of secp256k1: the contract refuses an s above it, the high-s twin of a valid signature. */
const HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * A 65-byte (r, s, v) signature in the one form the contract takes, the form wallets produce: s low, v 27 or 28.
 * Any other is refused before recovery, since the contract would revert the refund the user sends.
 */
export function isCooperativeRefundSignature(text: string): text is Hex {
  if (!isZeroXHex(text, 130)) return false;
  const s = BigInt(`0x${text.slice(66, 130)}`);
  const v = Number.parseInt(text.slice(130), 16);
  return s > 0n && s <= HALF_CURVE_ORDER && (v === 27 || v === 28);
}

/**
 * Typed data about one funder's slot of an order in the third-version contract's domain, as a wallet's
 * `signTypedData` takes it: what a claimer's cooperative refund and a funder's cancel both sign, each under its own
 * primary type.
 */
export function slotTypedData<const Types, const PrimaryType extends keyof Types & string>(
  types: Types,
  primaryType: PrimaryType,
  orderId: string,
  funder: string,
  domain: CooperativeRefundDomain,
) {
  if (!isEthereumAddress(funder)) throw new Error('funder must be an Ethereum address');
  if (!isEthereumAddress(domain.verifyingContract)) throw new Error('verifyingContract must be an Ethereum address');
  return {
    domain: {
      name: 'lnswap',
      version: '3',
      chainId: domain.chainId,
      verifyingContract: domain.verifyingContract.toLowerCase() as Hex,
    },
    types,
    primaryType,
    message: { orderUUID: orderIdToBytes16(orderId), funder: funder.toLowerCase() as Hex },
  } as const;
}

/** The typed data a claimer signs to give up `funder`'s slot of the order, as a wallet's `signTypedData` takes it. */
export function cooperativeRefundTypedData(orderId: string, funder: string, domain: CooperativeRefundDomain) {
  return slotTypedData(COOPERATIVE_REFUND_TYPES, 'CooperativeRefund', orderId, funder, domain);
}

/**
 * Who signed the cooperative refund of `funder`'s slot, lowercase; undefined for bytes that are no signature at
 * all. A signature of another slot, contract or chain recovers to some other address, never the claimer's.
 */
export async function cooperativeRefundSigner(
  orderId: string,
  { funder, signature }: CooperativeRefundSignature,
  domain: CooperativeRefundDomain,
): Promise<string | undefined> {
  try {
    const signer = await recoverTypedDataAddress({
      ...cooperativeRefundTypedData(orderId, funder, domain),
      signature,
    });
    return signer.toLowerCase();
  } catch {
    return undefined;
  }
}

/** `refundCooperative(orderUUID, funder, signature)`: any account may send it; the contract pays the funder. */
export function encodeRefundCooperativeCalldata(
  orderId: string,
  { funder, signature }: CooperativeRefundSignature,
): Hex {
  if (!isEthereumAddress(funder)) throw new Error('funder must be an Ethereum address');
  if (!isCooperativeRefundSignature(signature)) throw new Error('signature must be 65 bytes of 0x hex');
  return encodeFunctionData({
    abi: REFUND_COOPERATIVE_ABI,
    functionName: 'refundCooperative',
    args: [orderIdToBytes16(orderId), funder.toLowerCase() as Hex, signature],
  });
}

/** The order, funder and signature of `refundCooperative` calldata, lowercase; undefined for any other call. */
export function decodeRefundCooperativeCalldata(
  data: Hex,
): { orderUUID: string; funder: string; signature: Hex } | undefined {
  try {
    const call = decodeFunctionData({ abi: REFUND_COOPERATIVE_ABI, data });
    const [orderUUID, funder, signature] = call.args;
    return {
      orderUUID: orderUUID.toLowerCase(),
      funder: funder.toLowerCase(),
      signature: signature.toLowerCase() as Hex,
    };
  } catch {
    return undefined;
  }
}

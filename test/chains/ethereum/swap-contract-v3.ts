// What tests of the third swap contract share: deploying it as the operator would, and the claimer's EIP-712
// signature of a cooperative refund, made by viem's `signTypedData` as a wallet makes it.
import type { Account, Address, Hex, LocalAccount } from 'viem';
import {
  SWAP_CONTRACT_V3_ARTIFACT_ABI,
  SWAP_CONTRACT_V3_BYTECODE,
} from '../../../src/chains/ethereum/swap-contract-v3-artifact.js';
import { orderIdToBytes16 } from '../../../src/domain/order-ids.js';
import type { AnvilNode } from '../../support/anvil.js';

/** The EIP-712 type of a cooperative refund, as the contract hashes it. */
export const COOPERATIVE_REFUND_TYPES = {
  CooperativeRefund: [
    { name: 'orderUUID', type: 'bytes16' },
    { name: 'funder', type: 'address' },
  ],
} as const;

/** What a signature binds besides the slot: the contract and its chain. */
export interface CooperativeRefundDomain {
  readonly chainId: number;
  readonly verifyingContract: Address;
}

/** Deploys the third version from `owner` with the second's constructor; `owner` alone may `adminRefund`. */
export async function deploySwapContractV3(node: AnvilNode, refundDelay: bigint, owner: Account): Promise<Address> {
  const hash = await node.wallet(owner).deployContract({
    abi: SWAP_CONTRACT_V3_ARTIFACT_ABI,
    bytecode: SWAP_CONTRACT_V3_BYTECODE,
    args: [refundDelay],
  });
  const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || receipt.contractAddress == null) throw new Error(`deploying v3 failed: ${hash}`);
  return receipt.contractAddress;
}

/** `signer`'s 65-byte (r, s, v) signature giving up its claim on `funder`'s slot of the order. */
export function signCooperativeRefund(
  signer: LocalAccount,
  domain: CooperativeRefundDomain,
  orderId: string,
  funder: Address,
): Promise<Hex> {
  return signer.signTypedData({
    domain: { name: 'lnswap', version: '3', ...domain },
    types: COOPERATIVE_REFUND_TYPES,
    primaryType: 'CooperativeRefund',
    message: { orderUUID: orderIdToBytes16(orderId), funder },
  });
}

import type { Account, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../chains/ethereum/swap-contract-artifact.js';
import { encodeClaimCalldata } from '../../domain/ethereum.js';
import { orderIdToBytes16 } from '../../domain/order-ids.js';
import { SLOT_STATES, type EthereumSlot } from './ethereum-slot.js';

/** Reads the slot `funder` holds for the order. */
export async function readEthereumSlot(
  client: PublicClient<Transport, Chain>,
  contract: Hex,
  orderId: string,
  funder: Hex,
  /** Read as of this block (the latest when omitted): a slot funded then has that many confirmations. */
  blockNumber?: bigint,
): Promise<EthereumSlot> {
  const [paymentHash, claimer, token, amount, refundHeight, state] = await client.readContract({
    address: contract,
    abi: SWAP_CONTRACT_ARTIFACT_ABI,
    functionName: 'slots',
    args: [orderIdToBytes16(orderId), funder],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
  const slotState = SLOT_STATES[state];
  if (slotState === undefined || refundHeight > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error('swap contract answered a slot this lnswap cannot read');
  }
  return {
    paymentHash: paymentHash.slice(2),
    claimer,
    token,
    amount,
    refundHeight: Number(refundHeight),
    state: slotState,
  };
}

export interface EthereumClaimRequest {
  contract: Hex;
  orderId: string;
  funder: Hex;
  /** 64 hex, no 0x. */
  preimage: string;
  /** A replacement reuses the first claim's nonce with higher fees. */
  nonce?: number;
  fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
}

/**
 * Sends `claim(orderUUID, funder, preimage)` from the payout account. The contract pays the slot's
 * claimer, so the sender only spends gas; the call is simulated first, so a slot that cannot be
 * claimed (claimed already, wrong preimage, refund height passed) costs nothing.
 */
export async function sendEthereumClaim(
  publicClient: PublicClient<Transport, Chain>,
  wallet: WalletClient<Transport, Chain, Account>,
  request: EthereumClaimRequest,
): Promise<Hex> {
  // Checked against the latest block, not the pending one: a replacement's pending block already
  // holds the claim it replaces. The claim lands in the next block at the earliest, so the latest
  // block must be below the refund height, which the simulation alone would not see.
  const latest = await publicClient.getBlockNumber({ cacheTime: 0 });
  const slot = await readEthereumSlot(publicClient, request.contract, request.orderId, request.funder);
  if (slot.state === 'funded' && latest >= BigInt(slot.refundHeight)) {
    throw new Error(`RefundHeightPassed: the slot's refund height ${slot.refundHeight} is reached`);
  }
  // Simulated with the artifact's ABI, so a refusal names the contract's error (SlotNotOpen, WrongPreimage, ...).
  await publicClient.simulateContract({
    account: wallet.account,
    address: request.contract,
    abi: SWAP_CONTRACT_ARTIFACT_ABI,
    functionName: 'claim',
    args: [orderIdToBytes16(request.orderId), request.funder, `0x${request.preimage}`],
    blockTag: 'latest',
  });
  const data = encodeClaimCalldata(request.orderId, request.funder, request.preimage);
  // Gas estimated here too, against the latest block, for the same reason as the checks above.
  const gas = await publicClient.estimateGas({
    account: wallet.account,
    to: request.contract,
    data,
    blockTag: 'latest',
  });
  return wallet.sendTransaction({
    to: request.contract,
    data,
    gas,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    ...(request.fees ?? {}),
  });
}

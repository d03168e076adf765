import { getAddress, type Hex, type PrivateKeyAccount } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import type { connectWallet } from '../chains/ethereum/wallet-connection.js';
import type { SlotTerms } from '../domain/ethereum-slots.js';
import type { OrderSlot } from '../domain/order-slots.js';
import type { OpenSlot } from './admin-refund-plan.js';

/** One order's slots in the swap contract, and the owner's account and clients that refund them. */
export interface OrderSlotsOnChain extends Omit<Awaited<ReturnType<typeof connectWallet>>, 'chainId'> {
  readonly address: Hex;
  readonly orderUUID: Hex;
  readonly account: PrivateKeyAccount;
}

export interface RefundEstimate {
  readonly slot: OpenSlot;
  readonly gas: bigint;
}

/** `State.Funded` of the contract's slots: money in, neither claimed nor refunded. */
const SLOT_FUNDED = 1;

/**
 * The matching slots the contract still holds, in the order given, with what each holds: the watcher's
 * observations name the slots, the chain has the last word on their terms and whether they are open. Read one at
 * a time: a hosted node limits bursts.
 */
export async function openMatchingSlots(
  chain: OrderSlotsOnChain,
  slots: readonly OrderSlot[],
  terms: SlotTerms,
): Promise<OpenSlot[]> {
  const open: OpenSlot[] = [];
  for (const slot of slots) {
    const [paymentHash, claimer, token, amount, , state] = await chain.publicClient.readContract({
      address: chain.address,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'slots',
      args: [chain.orderUUID, getAddress(slot.funder)],
    });
    const same =
      paymentHash.slice(2).toLowerCase() === terms.paymentHash &&
      claimer.toLowerCase() === terms.claimer &&
      token.toLowerCase() === terms.token;
    if (same && state === SLOT_FUNDED) open.push({ funder: slot.funder, role: slot.role, amount });
  }
  return open;
}

/** The gas each `adminRefund` takes, run against the chain now: one that would fail throws before anything is sent. */
export async function estimateAdminRefunds(
  chain: OrderSlotsOnChain,
  slots: readonly OpenSlot[],
): Promise<RefundEstimate[]> {
  const estimates: RefundEstimate[] = [];
  for (const slot of slots) {
    const gas = await chain.publicClient.estimateContractGas({
      address: chain.address,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'adminRefund',
      args: [chain.orderUUID, getAddress(slot.funder)],
      account: chain.account,
    });
    estimates.push({ slot, gas });
  }
  return estimates;
}

/**
 * Sends one `adminRefund` per estimate, back to back with consecutive nonces and each estimate's gas, reporting
 * each hash through `sent`, then waits for every receipt: many refunds share a block instead of taking one block
 * each. Returns the gas and wei the receipts spent, and the refunds that failed on chain.
 */
export async function sendAdminRefunds(
  chain: OrderSlotsOnChain,
  estimates: readonly RefundEstimate[],
  sent: (hash: Hex, slot: OpenSlot) => void,
): Promise<{ gas: bigint; wei: bigint; failed: Hex[] }> {
  const fees = await chain.publicClient.estimateFeesPerGas();
  let nonce = await chain.publicClient.getTransactionCount({ address: chain.account.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const { slot, gas } of estimates) {
    const hash = await chain.walletClient.writeContract({
      address: chain.address,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'adminRefund',
      args: [chain.orderUUID, getAddress(slot.funder)],
      gas,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    nonce += 1;
    hashes.push(hash);
    sent(hash, slot);
  }
  const spent = { gas: 0n, wei: 0n, failed: [] as Hex[] };
  for (const hash of hashes) {
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    spent.gas += receipt.gasUsed;
    spent.wei += receipt.gasUsed * receipt.effectiveGasPrice;
    if (receipt.status !== 'success') spent.failed.push(hash);
  }
  return spent;
}

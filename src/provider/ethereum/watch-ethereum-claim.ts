import type { Account, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem';
import type { ClaimProgress } from '../daemon/chain-settlement.js';
import { decideClaimFee, type ClaimFeePolicy } from '../rules/claim-fee-bump.js';
import type { ClaimRecord, ProviderState } from '../state/provider-state.js';
import { readEthereumSlot, sendEthereumClaim } from './ethereum-claim.js';

export interface EthereumClaimWatch {
  state: ProviderState;
  publicClient: PublicClient<Transport, Chain>;
  wallet: WalletClient<Transport, Chain, Account>;
  contract: Hex;
  /** Blocks a claim needs, its own included, before it counts as confirmed. */
  confirmations: number;
  feePolicy: ClaimFeePolicy;
}

/**
 * One look at an Ethereum claim: confirmed once its receipt (or the slot, whichever claim of it landed)
 * is `confirmations` deep; lost when the user refunded the slot first; otherwise `decideClaimFee`
 * says whether to send it (a pending claim) or replace it with the same nonce at a higher priority fee.
 * The fee rate is the priority fee per gas; the fee cap is twice the base fee plus it, and never below
 * the replaced transaction's cap raised by the same percentage, which nodes require of a replacement.
 */
export async function watchEthereumClaim(
  watch: EthereumClaimWatch,
  claim: ClaimRecord,
  funder: Hex,
): Promise<ClaimProgress> {
  const { publicClient } = watch;
  const latest = await publicClient.getBlockNumber({ cacheTime: 0 });
  const blocksLeft = claim.refundHeight - Number(latest);
  const deepEnough = (minedAt: bigint) => latest - minedAt + 1n >= BigInt(watch.confirmations);
  if (claim.txId !== undefined) {
    const receipt = await publicClient.getTransactionReceipt({ hash: claim.txId as Hex }).catch(() => undefined);
    if (receipt?.status === 'success') {
      if (!deepEnough(receipt.blockNumber)) return { kind: 'waiting', blocksLeft, atRisk: false };
      watch.state.recordClaimConfirmed(claim.orderId, claim.txId, Number(receipt.blockNumber));
      return { kind: 'confirmed', txId: claim.txId };
    }
  }
  const slot = await readEthereumSlot(publicClient, watch.contract, claim.orderId, funder);
  if (slot.state === 'refunded') {
    watch.state.recordClaimLost(claim.orderId);
    return { kind: 'lost' };
  }
  if (slot.state === 'claimed') {
    // An earlier transaction of this claim landed (or anyone's claim: it pays the provider all the same).
    const settledAt = latest - BigInt(watch.confirmations - 1);
    const settled =
      settledAt >= 0n &&
      (await readEthereumSlot(publicClient, watch.contract, claim.orderId, funder, settledAt)).state === 'claimed';
    if (!settled) return { kind: 'waiting', blocksLeft, atRisk: false };
    watch.state.recordClaimConfirmed(claim.orderId, claim.txId ?? '', Number(settledAt));
    return { kind: 'confirmed', txId: claim.txId ?? '' };
  }
  const payment = watch.state.payment(claim.paymentHash);
  if (payment?.preimage === undefined) throw new Error(`claim of order ${claim.orderId} has no preimage`);
  const decision = decideClaimFee(
    {
      currentHeight: Number(latest),
      refundHeight: claim.refundHeight,
      estimatedRate: await publicClient.estimateMaxPriorityFeePerGas(),
      ...(claim.state === 'broadcast' && claim.broadcastHeight !== undefined && claim.fee !== undefined
        ? { broadcast: { height: claim.broadcastHeight, rate: claim.fee } }
        : {}),
    },
    watch.feePolicy,
  );
  if (decision.action === 'wait') return { kind: 'waiting', blocksLeft, atRisk: decision.atRisk };
  if (decision.action === 'capped') return { kind: 'capped', blocksLeft, atRisk: true };
  const nonce =
    claim.nonce ??
    (await publicClient.getTransactionCount({ address: watch.wallet.account.address, blockTag: 'pending' }));
  const maxFeePerGas = await feeCap(watch, claim, latest, decision.rate);
  const txId = await sendEthereumClaim(publicClient, watch.wallet, {
    contract: watch.contract,
    orderId: claim.orderId,
    funder,
    preimage: payment.preimage,
    nonce,
    fees: { maxFeePerGas, maxPriorityFeePerGas: decision.rate },
  });
  watch.state.recordClaimBroadcast(claim.orderId, { txId, fee: decision.rate, height: Number(latest), nonce });
  const kind = claim.state === 'broadcast' ? 'bumped' : 'sent';
  return { kind, blocksLeft, atRisk: decision.atRisk, txId, rate: decision.rate };
}

async function feeCap(watch: EthereumClaimWatch, claim: ClaimRecord, latest: bigint, rate: bigint): Promise<bigint> {
  const block = await watch.publicClient.getBlock({ blockNumber: latest });
  const cap = 2n * (block.baseFeePerGas ?? 0n) + rate;
  if (claim.txId === undefined) return cap;
  const replaced = await watch.publicClient.getTransaction({ hash: claim.txId as Hex }).catch(() => undefined);
  const replacedCap = replaced?.maxFeePerGas ?? replaced?.gasPrice;
  if (replacedCap === undefined) return cap;
  const raised = (replacedCap * watch.feePolicy.bumpPercent + 99n) / 100n;
  return raised > cap ? raised : cap;
}

/**
 * When and how far to raise a claim's fee. Fee rates are whole numbers in the chain's unit
 * (satoshis per virtual byte on Bitcoin, wei per gas on Ethereum).
 */
export interface ClaimFeePolicy {
  /** A claim unconfirmed this many blocks after its broadcast is bumped. */
  stuckAfterBlocks: number;
  /** From this many blocks before the refund height on, every block without confirmation bumps it. */
  urgentBlocks: number;
  /** Each bump multiplies the rate by this many percent (at least 110: Ethereum nodes replace only at +10%). */
  bumpPercent: bigint;
  /** The least a replacement must add (Bitcoin's incremental relay fee, BIP 125 rule 4). */
  minimumIncrement: bigint;
  /** Never above this rate: beyond it the claim costs more than it is worth. */
  maximumRate: bigint;
}

export interface ClaimSituation {
  currentHeight: number;
  refundHeight: number;
  /** The node's estimate for confirmation soon. */
  estimatedRate: bigint;
  /** The latest broadcast claim; undefined before the first. */
  broadcast?: { height: number; rate: bigint };
}

export type ClaimFeeDecision =
  | { action: 'broadcast'; rate: bigint; atRisk: boolean }
  | { action: 'wait'; atRisk: boolean }
  /** The rate is at the policy's maximum and the claim still is not in: someone must look. */
  | { action: 'capped'; atRisk: true };

/**
 * The first claim goes out at the estimate (raised as for a bump when already urgent); a broadcast
 * claim is replaced at a higher rate once stuck, or at every block near the refund height. At risk
 * means within the urgent window: logged loudly and shown in metrics.
 */
export function decideClaimFee(situation: ClaimSituation, policy: ClaimFeePolicy): ClaimFeeDecision {
  const blocksLeft = situation.refundHeight - situation.currentHeight;
  const atRisk = blocksLeft <= policy.urgentBlocks;
  const { broadcast } = situation;
  if (broadcast === undefined) {
    const rate = atRisk ? raised(situation.estimatedRate, policy) : situation.estimatedRate;
    return { action: 'broadcast', rate: min(rate, policy.maximumRate), atRisk };
  }
  const waited = situation.currentHeight - broadcast.height;
  const due = waited >= policy.stuckAfterBlocks || (atRisk && waited >= 1);
  if (!due) return { action: 'wait', atRisk };
  const rate = min(max(raised(broadcast.rate, policy), situation.estimatedRate), policy.maximumRate);
  if (rate <= broadcast.rate) return atRisk ? { action: 'capped', atRisk: true } : { action: 'wait', atRisk };
  return { action: 'broadcast', rate, atRisk };
}

function raised(rate: bigint, policy: ClaimFeePolicy): bigint {
  const scaled = (rate * policy.bumpPercent + 99n) / 100n;
  return max(scaled, rate + policy.minimumIncrement);
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

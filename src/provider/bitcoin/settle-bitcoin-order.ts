/**
 * One repeatable step of a Bitcoin order the provider won: pay the invoice when the money rules allow,
 * then claim every HTLC output, and keep the claim going (fee bumps by replacement) until it is confirmed.
 *
 * API: `settleBitcoinOrder(settlement, order)` → `BitcoinSettlementStep`. Safe to call at any time, as
 * often as wished, and after any crash: everything it needs is in the state file and on the chain.
 * The caller runs it for each won order the service has not completed, and for each open claim
 * (`state.openClaims()`), until it answers `claim-confirmed`, `not-paying`, `payment-failed` or `refunded`.
 */
import { BroadcastRefused } from '../../chains/chain-backend.js';
import type { BitcoinBackend } from '../../chains/bitcoin/bitcoin-backend.js';
import { decodeInvoice } from '../../domain/invoice.js';
import type { Network } from '../../domain/markets.js';
import type { OrderState } from '../../domain/states.js';
import { buildBitcoinClaim, ClaimNotWorthIt, type BitcoinClaim } from './bitcoin-claim.js';
import { readBitcoinHtlc, type BitcoinHtlcView } from './bitcoin-htlc-view.js';
import type { ClaimKeys } from '../keys/claim-keys.js';
import { paymentStanding, payWhenCleared, type PaymentSettings, type PaymentStep } from '../payments/pay-invoice.js';
import { decideClaimFee, type ClaimFeeDecision, type ClaimFeePolicy } from '../rules/claim-fee-bump.js';
import { judgeInvoice } from '../rules/quoted-terms.js';
import type { BitcoinHtlcRecord, ClaimRecord } from '../state/provider-state.js';

export interface BitcoinOrder {
  orderId: string;
  invoice: string;
  /** The order's state as the service last reported it. */
  serviceState: OrderState;
}

export interface BitcoinSettlement extends PaymentSettings {
  /** The provider's own node (Esplora or Core): its view of the HTLC, and its fee estimate. */
  chain: BitcoinBackend;
  /** Sends a signed claim: the own node's `broadcast`, or the service's `broadcastTransaction`. */
  broadcast: (signedTxHex: string) => Promise<unknown>;
  network: Network;
  keys: ClaimKeys;
  /** Where claims pay the funds. */
  payoutAddress: string;
  /** `requiredConfirmations` (PaymentSettings) are also wanted on the claim before it is done. */
  claimFeePolicy: ClaimFeePolicy;
}

export type BitcoinSettlementStep =
  | Exclude<PaymentStep, { kind: 'paid' }>
  | { kind: 'not-paying'; reason: 'not-quoted' | 'payment-hash-mismatch' | 'invoice-not-quoted' }
  /** A claim (the first or a replacement) went out at `rate` satoshis per vbyte. */
  | { kind: 'claim-sent'; txId: string; rate: bigint; fee: bigint; atRisk: boolean }
  /** The claim is out and not due for a bump (sent again, in case the node forgot it). */
  | { kind: 'claim-waiting'; txId: string; atRisk: boolean }
  /** At the policy's maximum rate within the urgent window: someone must look. */
  | { kind: 'claim-capped'; txId: string; atRisk: true }
  | { kind: 'claim-confirmed'; txId: string }
  /** The fee at the rate due would leave less than the dust limit of the outputs: someone must look. */
  | { kind: 'claim-not-worth-it'; total: bigint; fee: bigint }
  /** The user refunded the HTLC: a payment made for it is lost. */
  | { kind: 'refunded'; txId: string };

/**
 * Pays only on the provider's own reading of the HTLC: the outputs in blocks paying its address must add
 * up to the quote, exactly in satoshis, with the required confirmations on the latest of them. Short of the
 * quote means wait, never final: a Bitcoin order may be topped up with a second output.
 */
export async function settleBitcoinOrder(
  settlement: BitcoinSettlement,
  order: BitcoinOrder,
): Promise<BitcoinSettlementStep> {
  const { state } = settlement;
  const decoded = decodeInvoice(order.invoice);
  const quote = state.quote(order.orderId);
  const htlc = state.bitcoinHtlc(order.orderId);
  if (decoded?.amountMillisatoshis === undefined || quote === undefined || htlc === undefined) {
    return { kind: 'not-paying', reason: 'not-quoted' };
  }
  // The HTLC opens only to the preimage of the hash quoted: paying another invoice could never be claimed.
  if (decoded.paymentHash !== quote.paymentHash) return { kind: 'not-paying', reason: 'payment-hash-mismatch' };
  const claim = state.claim(order.orderId);
  if (claim?.state === 'confirmed') return { kind: 'claim-confirmed', txId: claim.txId ?? '' };

  const view = await readBitcoinHtlc(settlement.chain, htlc, decoded.paymentHash);
  const claimTerms = { chain: 'bitcoin' as const, refundHeight: htlc.refundHeight };
  const payable = { ...decoded, amountMillisatoshis: decoded.amountMillisatoshis };

  const standing = await paymentStanding(settlement, decoded.paymentHash, claimTerms);
  if (standing !== undefined) {
    return standing.kind === 'paid' ? advanceClaim(settlement, order.orderId, htlc, view, standing.preimage) : standing;
  }
  // Nothing begun: only the invoice quoted for is ever paid, whoever hands it over.
  if (judgeInvoice(quote, order.invoice).kind !== 'as-quoted')
    return { kind: 'not-paying', reason: 'invoice-not-quoted' };

  const funded = view.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const latestConfirmations = Math.min(...view.outputs.map((output) => output.confirmations));
  const paid = await payWhenCleared(settlement, order, payable, claimTerms, {
    serviceState: order.serviceState,
    ownFunding:
      view.outputs.length === 0 || funded < quote.onchainAmount
        ? undefined
        : { amount: funded, confirmations: latestConfirmations },
    expectedAmount: quote.onchainAmount,
    currentHeight: view.tipHeight,
  });
  return paid.kind === 'paid' ? advanceClaim(settlement, order.orderId, htlc, view, paid.preimage) : paid;
}

/**
 * The claim's next move: confirmed enough → done; in a block → wait for depth; otherwise the first
 * claim, a replacement at a higher rate when `decideClaimFee` says so, or the same claim sent again.
 */
async function advanceClaim(
  settlement: BitcoinSettlement,
  orderId: string,
  htlc: BitcoinHtlcRecord,
  view: BitcoinHtlcView,
  preimage: string,
): Promise<BitcoinSettlementStep> {
  const { state } = settlement;
  const claim = state.claim(orderId);
  if (claim === undefined) throw new Error(`order ${orderId} was paid but has no claim in the provider state`);
  // Whichever of the claim's versions got mined (the first or a replacement), it is the provider's.
  const mined = view.claims.at(-1);
  if (mined !== undefined && mined.confirmations >= settlement.requiredConfirmations) {
    state.recordClaimConfirmed(orderId, mined.txId, mined.height);
    return { kind: 'claim-confirmed', txId: mined.txId };
  }
  if (mined !== undefined) return { kind: 'claim-waiting', txId: mined.txId, atRisk: false };
  const refund = view.refunds[0];
  if (refund !== undefined) return { kind: 'refunded', txId: refund.txId };
  // Paid, yet no output in the node's blocks: a reorg took the funding out, or the node is behind.
  if (view.outputs.length === 0) return { kind: 'waiting', reason: 'funding-not-seen' };

  const estimate = await settlement.chain.feeRate();
  const broadcast = broadcastOf(claim);
  const decision = decideClaimFee(
    {
      currentHeight: view.tipHeight,
      refundHeight: htlc.refundHeight,
      // Without an estimate from the node, the last rate paid (or the least there is) stands.
      estimatedRate: estimate === undefined ? (broadcast?.rate ?? 1n) : BigInt(estimate),
      ...(broadcast === undefined ? {} : { broadcast }),
    },
    settlement.claimFeePolicy,
  );
  const build = (feeRate: bigint): BitcoinClaim =>
    buildBitcoinClaim({
      orderId,
      redeemScript: htlc.redeemScript,
      payToAddress: htlc.payToAddress,
      outputs: view.outputs,
      preimage,
      payoutAddress: settlement.payoutAddress,
      network: settlement.network,
      feeRate,
      keys: settlement.keys,
    });

  try {
    return await sendClaim(settlement, orderId, claim, decision, view.tipHeight, build);
  } catch (error) {
    if (!(error instanceof ClaimNotWorthIt)) throw error;
    return { kind: 'claim-not-worth-it', total: error.total, fee: error.fee };
  }
}

async function sendClaim(
  settlement: BitcoinSettlement,
  orderId: string,
  claim: ClaimRecord,
  decision: ClaimFeeDecision,
  tipHeight: number,
  build: (feeRate: bigint) => BitcoinClaim,
): Promise<BitcoinSettlementStep> {
  const { state } = settlement;
  const broadcast = broadcastOf(claim);
  if (decision.action === 'broadcast') {
    const sent = build(decision.rate);
    await settlement.broadcast(sent.hex);
    state.recordClaimBroadcast(orderId, {
      txId: sent.txId,
      fee: sent.fee,
      feeRate: decision.rate,
      height: tipHeight,
    });
    return { kind: 'claim-sent', txId: sent.txId, rate: decision.rate, fee: sent.fee, atRisk: decision.atRisk };
  }
  // Not due for a bump: the same claim again (signatures are deterministic, so it is the same
  // transaction), in case the node lost it from its mempool or restarted.
  const again = build(broadcast?.rate ?? 1n);
  await sendAgain(settlement, again.hex);
  if (decision.action === 'capped') return { kind: 'claim-capped', txId: claim.txId ?? again.txId, atRisk: true };
  return { kind: 'claim-waiting', txId: claim.txId ?? again.txId, atRisk: decision.atRisk };
}

function broadcastOf(claim: ClaimRecord): { height: number; rate: bigint } | undefined {
  if (claim.state !== 'broadcast' || claim.broadcastHeight === undefined || claim.feeRate === undefined) {
    return undefined;
  }
  return { height: claim.broadcastHeight, rate: claim.feeRate };
}

/** The node already holding it, or a version of it, refuses it again: that is no failure. */
async function sendAgain(settlement: BitcoinSettlement, hex: string): Promise<void> {
  try {
    await settlement.broadcast(hex);
  } catch (error) {
    if (!(error instanceof BroadcastRefused)) throw error;
  }
}

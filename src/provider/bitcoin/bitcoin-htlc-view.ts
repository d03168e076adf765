/**
 * The provider's own reading of one order's HTLC on Bitcoin, through its Esplora or Core node.
 *
 * API: `readBitcoinHtlc(chain, htlc, paymentHash)` → the tip, the outputs paying the HTLC address in
 * blocks (with their confirmations), and the spends of them (claims, refunds), from the height the
 * provider quoted at to the tip.
 *
 * Only blocks count: an output in the mempool can still be replaced by its sender. Every output paying
 * the address counts, whoever sent it: the claim path takes any of them with the preimage and the
 * provider's key. Reading costs what the backend's `observations` cost for one order over the blocks since
 * the quote: a few address-history pages on Esplora, every block of the span on Core (docs/provider.md).
 */
import type { BitcoinBackend } from '../../chains/bitcoin/bitcoin-backend.js';
import type { FundingOutput, WatchSet } from '../../chains/chain-backend.js';
import { confirmationsAt } from '../../domain/chain-observations.js';
import type { BitcoinHtlcRecord } from '../state/provider-state.js';

export interface HtlcOutput {
  txId: string;
  outputIndex: number;
  amount: bigint;
  height: number;
  confirmations: number;
}

export interface HtlcSpend {
  txId: string;
  height: number;
  confirmations: number;
}

export interface BitcoinHtlcView {
  tipHeight: number;
  /** In chain order. */
  outputs: HtlcOutput[];
  /** Spends that revealed the preimage: the provider's claims. */
  claims: HtlcSpend[];
  /** Spends without it: the user's refunds. */
  refunds: HtlcSpend[];
}

export async function readBitcoinHtlc(
  chain: BitcoinBackend,
  htlc: BitcoinHtlcRecord,
  paymentHash: string,
): Promise<BitcoinHtlcView> {
  const tip = await chain.tip();
  const view: BitcoinHtlcView = { tipHeight: tip.height, outputs: [], claims: [], refunds: [] };
  const order = {
    orderId: htlc.orderId,
    payToAddress: htlc.payToAddress,
    paymentHash,
    redeemScript: htlc.redeemScript,
  };
  // Outputs found in earlier spans, so a spend of them in a later span is seen as one.
  const fundingOutputs: FundingOutput[] = [];
  for (let from = htlc.quotedHeight; from <= tip.height; from += chain.maxRangeBlocks) {
    const to = Math.min(tip.height, from + chain.maxRangeBlocks - 1);
    const watch: WatchSet = { orders: [order], fundingOutputs: [...fundingOutputs] };
    for (const observation of await chain.observations({ from, to }, watch)) {
      const { txId, block } = observation;
      const confirmations = confirmationsAt(block.height, tip.height);
      if (observation.kind === 'funding') {
        const outputIndex = observation.outputIndex ?? 0;
        view.outputs.push({ txId, outputIndex, amount: observation.amount, height: block.height, confirmations });
        fundingOutputs.push({ orderId: htlc.orderId, txId, outputIndex });
      } else {
        const spend = { txId, height: block.height, confirmations };
        const spends = observation.kind === 'claim' ? view.claims : view.refunds;
        if (!spends.some((known) => known.txId === txId)) spends.push(spend);
      }
    }
  }
  return view;
}

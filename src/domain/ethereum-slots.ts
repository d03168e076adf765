import type { ChainObservation, FundingObservation } from './chain-observations.js';
import { ZERO_ADDRESS } from './ethereum.js';
import type { MarketCatalog } from './market-catalog.js';
import { findMarket, type ChainKind, type OnchainAsset } from './markets.js';
import type { OrderRecord } from './order.js';

/**
 * What a swap-contract slot must say to count toward an order. The contract keeps money per (order, funder);
 * anyone can open a slot under any order id, so the order id alone proves nothing: only a slot whose payment
 * hash, claimer and asset are the order's pays the provider who pays the invoice.
 */
export interface SlotTerms {
  /** Lowercase hex, 64 digits, no 0x. */
  readonly paymentHash: string;
  /** Lowercase 0x address: the payout address of the provider whose quote won. */
  readonly claimer: string;
  /** Lowercase 0x address: the ERC-20 contract of a token market, the zero address for ether. */
  readonly token: string;
}

/** Why a funding's slot is not the order's: each term that differs, or that it cannot be judged at all. */
export type SlotMismatch = 'orderHasNoSlotTerms' | 'noSlot' | 'paymentHash' | 'claimer' | 'token';

/**
 * The on-chain asset of an order's market: the known markets' by default; where ERC-20 tokens are configured, the
 * configuration's catalog, which alone knows their markets. Undefined for a market it does not know.
 */
export type AssetOfOrder = (order: OrderRecord) => OnchainAsset | undefined;

export const knownAssetOf: AssetOfOrder = (order) => findMarket(order.market)?.onchain;

/** The asset of an order's market in `catalog`, configured tokens' included. */
export function assetOfIn(catalog: MarketCatalog): AssetOfOrder {
  return (order) => catalog.findMarket(order.market)?.onchain;
}

/**
 * The order's slot terms; undefined, so that no slot can match, for an order without a claimer (imported) or
 * whose asset is not known as an Ethereum one: a slot is never counted in an asset the order is not paid in.
 */
export function slotTermsOf(order: OrderRecord, assetOf: AssetOfOrder = knownAssetOf): SlotTerms | undefined {
  if (order.claimAddress === undefined) return undefined;
  const asset = assetOf(order);
  if (asset?.chain !== 'ethereum') return undefined;
  return {
    paymentHash: order.paymentHash.toLowerCase(),
    claimer: order.claimAddress.toLowerCase(),
    token: (asset.tokenAddress ?? ZERO_ADDRESS).toLowerCase(),
  };
}

/** Empty when the funding's slot is one of the order's. */
export function slotMismatches(funding: FundingObservation, terms: SlotTerms | undefined): SlotMismatch[] {
  if (terms === undefined) return ['orderHasNoSlotTerms'];
  // A funding without a funder was read from an event that names no slot: nothing says whose money it is.
  if (funding.funder === undefined) return ['noSlot'];
  const mismatches: SlotMismatch[] = [];
  if (funding.paymentHash !== terms.paymentHash) mismatches.push('paymentHash');
  if (funding.claimer !== terms.claimer) mismatches.push('claimer');
  if (funding.token !== terms.token) mismatches.push('token');
  return mismatches;
}

/**
 * The observations that count toward the order. On Ethereum: the fundings of its matching slots, and the claims
 * and refunds of those slots (a slot's terms are fixed by its first funding, so a funder's slot matches or not
 * as a whole); every other slot is foreign. On Bitcoin every observation is of the order's own HTLC.
 */
export function countedObservations(
  order: OrderRecord,
  observations: readonly ChainObservation[],
  chain: ChainKind,
  assetOf: AssetOfOrder = knownAssetOf,
): readonly ChainObservation[] {
  if (chain !== 'ethereum') return observations;
  const terms = slotTermsOf(order, assetOf);
  const matchingFunders = new Set<string>();
  for (const observation of observations) {
    if (observation.kind === 'funding' && slotMismatches(observation, terms).length === 0) {
      matchingFunders.add(observation.funder as string);
    }
  }
  return observations.filter(
    (observation) =>
      observation.funder !== undefined &&
      matchingFunders.has(observation.funder) &&
      (observation.kind !== 'funding' || slotMismatches(observation, terms).length === 0),
  );
}

import { encodeFundCalldata, ZERO_ADDRESS } from './ethereum.js';
import type { Market } from './markets.js';
import type { ChainViews, OrderRecord } from './order.js';

export interface BitcoinFundingDetails {
  redeemScript: string;
  payToAddress: string;
  refundableAtBlockHeight: number;
}

export interface EthereumFundingDetails {
  unsignedFundingTx: { to: string; data: `0x${string}`; value: bigint };
}

export interface FundingDetails {
  orderId: string;
  expiryTimestampMs: number;
  /** The order's full amount in base units, not what is left to pay. */
  amount: bigint;
  details: BitcoinFundingDetails | EthereumFundingDetails;
}

/** How a wallet funds the order: an HTLC address to pay, or a swap-contract call to send. */
export function deriveFundingDetails(order: OrderRecord, market: Market, chains: ChainViews): FundingDetails {
  return {
    orderId: order.id,
    expiryTimestampMs: order.expiresAt,
    amount: order.amount,
    details: market.onchain.chain === 'bitcoin' ? bitcoinDetails(order) : ethereumDetails(order, chains),
  };
}

function bitcoinDetails(order: OrderRecord): BitcoinFundingDetails {
  if (order.htlc.redeemScript === undefined) throw new Error(`order ${order.id} has no redeem script`);
  return {
    redeemScript: order.htlc.redeemScript,
    payToAddress: order.payToAddress,
    refundableAtBlockHeight: order.htlc.refundableAtBlockHeight,
  };
}

function ethereumDetails(order: OrderRecord, chains: ChainViews): EthereumFundingDetails {
  if (chains.ethereum === undefined) throw new Error(`no ethereum chain view to derive the funding of order ${order.id}`);
  return {
    unsignedFundingTx: {
      to: chains.ethereum.swapContractAddress,
      // An order without a claimer (imported without one) names the zero address, which the contract refuses:
      // it cannot be funded into a slot nobody could claim.
      data: encodeFundCalldata(order.id, order.paymentHash, order.claimAddress ?? ZERO_ADDRESS),
      value: order.amount,
    },
  };
}

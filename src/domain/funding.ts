import { encodeApproveCalldata, encodeFundCalldata, encodeFundTokenCalldata, ZERO_ADDRESS } from './ethereum.js';
import type { Market } from './markets.js';
import type { ChainViews, OrderRecord } from './order.js';
import { swapContractOfOrder } from './swap-contracts.js';

export interface BitcoinFundingDetails {
  redeemScript: string;
  payToAddress: string;
  refundableAtBlockHeight: number;
}

export interface UnsignedEthereumTx {
  to: string;
  data: `0x${string}`;
  value: bigint;
}

export interface EthereumFundingDetails {
  /** `fund(...)` with the order's amount as value; for a token order `fundToken(...)` with value 0. */
  unsignedFundingTx: UnsignedEthereumTx;
  /**
   * Token orders only: `approve(swap contract, amount)` on the token, to be mined before the funding call, which
   * the token refuses without it.
   */
  unsignedApprovalTx?: UnsignedEthereumTx;
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
    details: market.onchain.chain === 'bitcoin' ? bitcoinDetails(order) : ethereumDetails(order, market, chains),
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

function ethereumDetails(order: OrderRecord, market: Market, chains: ChainViews): EthereumFundingDetails {
  if (chains.ethereum === undefined)
    throw new Error(`no ethereum chain view to derive the funding of order ${order.id}`);
  // The contract the order was made on, which stays its contract after new quotes move to another.
  const contract = swapContractOfOrder(order, chains.ethereum).address;
  // An order without a claimer (imported without one) names the zero address, which the contract refuses:
  // it cannot be funded into a slot nobody could claim.
  const claimer = order.claimAddress ?? ZERO_ADDRESS;
  const token = market.onchain.tokenAddress;
  if (token === undefined) {
    return {
      unsignedFundingTx: {
        to: contract,
        data: encodeFundCalldata(order.id, order.paymentHash, claimer),
        value: order.amount,
      },
    };
  }
  return {
    unsignedFundingTx: {
      to: contract,
      data: encodeFundTokenCalldata(order.id, order.paymentHash, claimer, token, order.amount),
      value: 0n,
    },
    unsignedApprovalTx: { to: token, data: encodeApproveCalldata(contract, order.amount), value: 0n },
  };
}

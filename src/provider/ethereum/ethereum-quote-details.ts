import { encodeApproveCalldata, encodeFundCalldata, encodeFundTokenCalldata } from '../../domain/ethereum.js';
import type { QuoteDetailsRequest } from '../service-link/quote-responder.js';

export interface EthereumQuoteTerms {
  swapContractAddress: string;
  /** The address the contract pays claims to: the provider's payout account. */
  payoutAddress: string;
  /** The market's ERC-20 contract; absent for ether. */
  tokenAddress?: string;
}

/**
 * The Ethereum `details` of a maker quote: `fund(orderUUID, paymentHash, payoutAddress)` carrying the
 * amount as value, or for a token `fundToken(...)` with value 0 and the `approve` the token needs
 * first, in REDSHIFT's shape. The claimer is always the provider's payout address: the contract pays
 * a slot's claimer, whoever sends the claim.
 */
export function ethereumQuoteDetails(terms: EthereumQuoteTerms, order: QuoteDetailsRequest): Record<string, unknown> {
  const contract = terms.swapContractAddress;
  if (terms.tokenAddress === undefined) {
    return {
      unsignedFundingTx: {
        to: contract,
        data: encodeFundCalldata(order.orderId, order.paymentHash, terms.payoutAddress),
        value: order.amount.toString(),
      },
    };
  }
  return {
    unsignedFundingTx: {
      to: contract,
      data: encodeFundTokenCalldata(
        order.orderId,
        order.paymentHash,
        terms.payoutAddress,
        terms.tokenAddress,
        order.amount,
      ),
      value: '0',
    },
    unsignedApprovalTx: { to: terms.tokenAddress, data: encodeApproveCalldata(contract, order.amount), value: '0' },
  };
}

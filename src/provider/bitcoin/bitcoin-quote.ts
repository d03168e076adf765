/**
 * The Bitcoin part of a maker quote: the HTLC the user funds, naming the order's claim key.
 *
 * API: `quoteBitcoinHtlc(state, keys, request)` → `{ details }` to send as the `makerQuote`'s `details`
 * (written to the state first), or `{ declined }` when the service would refuse it.
 *
 * What the service checks (src/engine/lifecycle/maker-quote.ts, verifyBitcoinFunding), and how this meets it:
 * the redeem script is the template with the order's payment hash, the provider's claim key and the
 * hash of the user's refund key, which must come from a P2PKH or P2WPKH refund address of the market's
 * network; the pay-to address is one of the script's; `refundableAtBlockHeight` is the script's height,
 * `timelockBlocks` above the provider's tip, which the service requires within its timelock bounds of
 * its own tip. The address is native P2WSH: the smallest claim (the witness is discounted) and the
 * form every wallet since 2017 pays.
 */
import { buildHtlcRedeemScript, htlcPayToAddresses, refundPublicKeyHashOfAddress } from '../../domain/bitcoin.js';
import type { Network } from '../../domain/markets.js';
import type { ClaimKeys } from '../keys/claim-keys.js';
import type { ProviderState } from '../state/provider-state.js';

export interface BitcoinQuoteRequest {
  orderId: string;
  paymentHash: string;
  /** The user's refund address from the quote request. */
  refundAddress: string | undefined;
  network: Network;
  /** The provider's own chain tip now. */
  currentHeight: number;
  /** Blocks from now until the user may refund: the provider's time to pay and claim. */
  timelockBlocks: number;
}

export interface BitcoinQuoteDetails {
  redeemScript: string;
  payToAddress: string;
  refundableAtBlockHeight: number;
}

export type BitcoinQuote = { details: BitcoinQuoteDetails } | { declined: 'refund-address-unusable' };

export function quoteBitcoinHtlc(state: ProviderState, keys: ClaimKeys, request: BitcoinQuoteRequest): BitcoinQuote {
  const refundPublicKeyHash =
    request.refundAddress === undefined
      ? undefined
      : refundPublicKeyHashOfAddress(request.refundAddress, request.network);
  if (refundPublicKeyHash === undefined) return { declined: 'refund-address-unusable' };
  const refundableAtBlockHeight = request.currentHeight + request.timelockBlocks;
  const redeemScript = buildHtlcRedeemScript({
    paymentHash: request.paymentHash,
    claimPublicKey: keys.publicKey(request.orderId),
    refundPublicKeyHash,
    refundableAtBlockHeight,
  });
  const payToAddress = htlcPayToAddresses(redeemScript, request.network).p2wsh;
  state.recordBitcoinHtlc({
    orderId: request.orderId,
    redeemScript,
    payToAddress,
    refundHeight: refundableAtBlockHeight,
    quotedHeight: request.currentHeight,
  });
  return { details: { redeemScript, payToAddress, refundableAtBlockHeight } };
}

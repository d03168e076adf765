/**
 * How a liquidity provider answers a quote request: a Bitcoin HTLC it can claim with the preimage
 * (and the user can refund after the timelock), or a call to the Ethereum swap contract.
 */
import { createECDH } from 'node:crypto';
import { formatFixedPoint } from '../src/domain/amounts.js';
import { buildHtlcRedeemScript, htlcPayToAddresses, refundPublicKeyHashOfAddress } from '../src/domain/bitcoin.js';
import { encodeFundCalldata } from '../src/domain/ethereum.js';
import { decodeInvoice } from '../src/domain/invoice.js';
import { findMarket } from '../src/domain/markets.js';

/** The `requestQuote` event a provider receives. */
export interface QuoteRequestEvent {
  orderId: string;
  market: string;
  invoice: string;
  refundAddress?: string;
  requestExpiryTimestampMs: number;
}

/** The `makerQuote` event a provider sends back. */
export interface MakerQuote {
  orderId: string;
  quoteExpiryTimestampMs: number;
  amount: string;
  details:
    | { redeemScript: string; payToAddress: string; refundableAtBlockHeight: number }
    | { unsignedFundingTx: { to: string; data: string; value: string } };
}

export interface MakerTerms {
  /** Private key (64 hex) whose public key may claim Bitcoin HTLCs with the preimage. */
  claimPrivateKey: string;
  /** How long the user gets to fund, counted from the quote request's deadline. */
  fundWindowMs: number;
  /** Blocks until the user may refund a Bitcoin HTLC. */
  timelockBlocks: number;
  /** The provider's own view of the Bitcoin chain. */
  bitcoinBlockHeight: number;
  swapContractAddress: string;
  /** Where the swap contract pays this provider's claims: the payout address the operator registered for it. */
  ethereumPayoutAddress: string;
  /** Base units of the on-chain asset asked for `satoshis` of Lightning payment. */
  price(market: string, satoshis: bigint): bigint;
  /** Which address of the Bitcoin HTLC the user pays; native P2WSH unless told. */
  htlcAddress?: 'p2sh' | 'p2wsh' | 'p2shP2wsh';
}

export function claimPublicKeyOf(privateKeyHex: string): string {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, 'hex'));
  return ecdh.getPublicKey('hex', 'compressed');
}

export function buildMakerQuote(request: QuoteRequestEvent, terms: MakerTerms): MakerQuote {
  const market = findMarket(request.market);
  const invoice = decodeInvoice(request.invoice);
  if (market === undefined || invoice?.amountMillisatoshis === undefined) {
    throw new Error(`cannot quote ${request.market} for this invoice`);
  }
  const baseUnits = terms.price(market.name, invoice.amountMillisatoshis / 1000n);
  const common = {
    orderId: request.orderId,
    quoteExpiryTimestampMs: request.requestExpiryTimestampMs + terms.fundWindowMs,
    amount: formatFixedPoint(baseUnits, market.onchain.decimals),
  };

  if (market.onchain.chain === 'ethereum') {
    return {
      ...common,
      details: {
        unsignedFundingTx: {
          to: terms.swapContractAddress,
          data: encodeFundCalldata(request.orderId, invoice.paymentHash, terms.ethereumPayoutAddress),
          value: baseUnits.toString(),
        },
      },
    };
  }

  const { refundAddress } = request;
  const refundPublicKeyHash =
    refundAddress === undefined ? undefined : refundPublicKeyHashOfAddress(refundAddress, market.network);
  if (refundPublicKeyHash === undefined) throw new Error('a Bitcoin quote needs the user refund address key hash');
  const refundableAtBlockHeight = terms.bitcoinBlockHeight + terms.timelockBlocks;
  const redeemScript = buildHtlcRedeemScript({
    paymentHash: invoice.paymentHash,
    claimPublicKey: claimPublicKeyOf(terms.claimPrivateKey),
    refundPublicKeyHash,
    refundableAtBlockHeight,
  });
  return {
    ...common,
    details: {
      redeemScript,
      payToAddress: htlcPayToAddresses(redeemScript, market.network)[terms.htlcAddress ?? 'p2wsh'],
      refundableAtBlockHeight,
    },
  };
}

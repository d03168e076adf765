import type { DecodedInvoice } from '../../domain/invoice.js';
import type { Network } from '../../domain/markets.js';

const MILLISATOSHIS_PER_BITCOIN = 100_000_000_000n;
const BASIS_POINTS = 10_000n;

/** A fixed-rate pricing policy for one market. Amounts are whole base units, never floating point. */
export interface MarketPricing {
  /** Base units of the on-chain asset for one bitcoin (satoshis: 100000000; wei: e.g. 30 ether). */
  onchainPerBitcoin: bigint;
  /** The provider's fee on the converted amount, in basis points. */
  feeBasisPoints: bigint;
  /** Added to every quote, in the on-chain asset's base units (covers the claim's own fee). */
  baseFee: bigint;
  /** The invoice amounts served, in millisatoshis, both inclusive. */
  minimumMillisatoshis: bigint;
  maximumMillisatoshis: bigint;
  /** The Lightning routing fee the provider will pay at most, in basis points of the invoice. */
  routingFeeLimitBasisPoints: bigint;
  /** The invoice must stay payable at least this long after quoting (fund window and confirmations). */
  minimumInvoiceLifetimeMs: number;
}

export interface QuoteContext {
  invoice: DecodedInvoice;
  /** The Lightning node's network: an invoice of another network is never quoted. */
  nodeNetwork: Network;
  nowMs: number;
  /** Millisatoshis the provider has at risk now (paid or to pay, not yet claimed). */
  atRiskMillisatoshis: bigint;
  /** The most it will have at risk at once. */
  inventoryLimitMillisatoshis: bigint;
  /** What the node can send now. */
  spendableMillisatoshis: bigint;
}

export type QuoteDecision =
  | { quote: true; onchainAmount: bigint; routingFeeLimitMillisatoshis: bigint }
  | {
      quote: false;
      reason:
        | 'no-amount'
        | 'wrong-network'
        | 'expires-too-soon'
        | 'below-minimum'
        | 'above-maximum'
        | 'inventory-full'
        | 'balance-too-low';
    };

/**
 * What to quote for an invoice, or why not: the invoice converted at the fixed rate (rounded up: the
 * provider never quotes below its rate), plus the fee in basis points and the base fee. It declines
 * invoices without an amount, of another network, expiring too soon, outside the market's bounds,
 * beyond the inventory limit, or more than the node can send with the routing fee it allows.
 */
export function priceQuote(pricing: MarketPricing, context: QuoteContext): QuoteDecision {
  const amount = context.invoice.amountMillisatoshis;
  if (amount === undefined) return { quote: false, reason: 'no-amount' };
  if (context.invoice.network !== context.nodeNetwork) return { quote: false, reason: 'wrong-network' };
  if (context.invoice.expiresAtMs - context.nowMs < pricing.minimumInvoiceLifetimeMs) {
    return { quote: false, reason: 'expires-too-soon' };
  }
  if (amount < pricing.minimumMillisatoshis) return { quote: false, reason: 'below-minimum' };
  if (amount > pricing.maximumMillisatoshis) return { quote: false, reason: 'above-maximum' };
  if (context.atRiskMillisatoshis + amount > context.inventoryLimitMillisatoshis) {
    return { quote: false, reason: 'inventory-full' };
  }
  const routingFeeLimit = routingFeeLimitMillisatoshis(pricing.routingFeeLimitBasisPoints, amount);
  if (amount + routingFeeLimit > context.spendableMillisatoshis) return { quote: false, reason: 'balance-too-low' };
  const converted = divideUp(amount * pricing.onchainPerBitcoin, MILLISATOSHIS_PER_BITCOIN);
  const fee = divideUp(converted * pricing.feeBasisPoints, BASIS_POINTS);
  return {
    quote: true,
    onchainAmount: converted + fee + pricing.baseFee,
    routingFeeLimitMillisatoshis: routingFeeLimit,
  };
}

/**
 * The routing fee the provider allows for an invoice of `amount` millisatoshis, rounded up: what a quote keeps
 * spendable beside the amount, and the fee limit its payment is sent with.
 */
export function routingFeeLimitMillisatoshis(basisPoints: bigint, amount: bigint): bigint {
  return divideUp(amount * basisPoints, BASIS_POINTS);
}

function divideUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

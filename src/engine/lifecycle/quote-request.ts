import { isBitcoinAddress, refundPublicKeyHashOfAddress } from '../../domain/bitcoin.js';
import { LnswapError } from '../../domain/errors.js';
import { isEthereumAddress } from '../../domain/ethereum.js';
import { decodeInvoice, hashInvoice } from '../../domain/invoice.js';
import type { MarketCatalog } from '../../domain/market-catalog.js';
import type { Market } from '../../domain/markets.js';
import type { PayReq, ProviderRecord } from '../../domain/order.js';
import { requirementsForMarket } from '../../domain/requirements.js';
import { quoteRequestShape } from '../../wire/socket-payloads.js';
import { payloadReader } from './payload-shapes.js';

/** A user's quote request that passed every check that needs no order history. */
export interface QuoteRequest {
  readonly market: Market;
  readonly invoice: string;
  readonly invoiceHash: string;
  readonly paymentHash: string;
  readonly amountMillisatoshis: bigint;
  readonly refundAddress?: string;
  /** The combined requirements of the active providers serving the market. */
  readonly requirements: PayReq;
}

export interface QuoteRequestContext {
  readonly catalog: MarketCatalog;
  readonly offeredMarkets: readonly string[];
  readonly providers: readonly ProviderRecord[];
  readonly now: number;
}

interface QuoteRequestFields {
  readonly market: string;
  readonly invoice: string;
  readonly refundAddress?: string | null;
}

const readFields = payloadReader<QuoteRequestFields>(quoteRequestShape);

/**
 * Checks `{ market, invoice, refundAddress? }` in the order the tokens are documented, so a client
 * always learns about the most basic problem first. Throws LnswapError.
 */
export function checkQuoteRequest(payload: unknown, context: QuoteRequestContext): QuoteRequest {
  const fields = readFields(payload);
  // JSON clients write an absent optional field as null.
  const refundAddress = fields.refundAddress ?? undefined;

  const market = context.catalog.findMarket(fields.market);
  if (market === undefined || !context.offeredMarkets.includes(market.name)) throw new LnswapError('InvalidMarket');

  const decoded = decodeInvoice(fields.invoice);
  // An invoice without an amount leaves nothing to quote.
  if (decoded?.amountMillisatoshis === undefined) throw new LnswapError('InvalidInvoice');
  if (decoded.network !== market.network) throw new LnswapError('InvalidMarketForInvoice');

  if (!isUsableRefundAddress(refundAddress, market)) throw new LnswapError('InvalidRefundAddress');

  const { payReq } = requirementsForMarket(market.name, context.offeredMarkets, context.providers);
  if (BigInt(decoded.expiresAtMs - context.now) < payReq.minExpirationSeconds * 1000n) {
    throw new LnswapError('InvoiceExpiresTooSoon');
  }
  if (decoded.amountMillisatoshis < payReq.minBaseUnits * 1000n) throw new LnswapError('InvoiceAmountBelowMinimum');
  if (decoded.amountMillisatoshis > payReq.maxBaseUnits * 1000n) throw new LnswapError('InvoiceAmountAboveMaximum');

  return {
    market,
    invoice: fields.invoice,
    invoiceHash: hashInvoice(fields.invoice),
    paymentHash: decoded.paymentHash,
    amountMillisatoshis: decoded.amountMillisatoshis,
    ...(refundAddress === undefined ? {} : { refundAddress }),
    requirements: payReq,
  };
}

/**
 * A Bitcoin HTLC's refund path pays a key hash, so Bitcoin markets need a P2PKH or P2WPKH address
 * of the market's network. Ethereum refunds go back to the funder; an address, if given, must be valid.
 */
function isUsableRefundAddress(refundAddress: string | undefined, market: Market): boolean {
  if (market.onchain.chain === 'ethereum') return refundAddress === undefined || isEthereumAddress(refundAddress);
  return (
    refundAddress !== undefined &&
    isBitcoinAddress(refundAddress, market.network) &&
    refundPublicKeyHashOfAddress(refundAddress, market.network) !== undefined
  );
}

/**
 * Every refusal the service can give, as the bare token clients match on.
 * Transports map tokens to their own shapes (HTTP status + text body, socket.io ack) in one place each.
 */
export type ErrorToken =
  // read API
  | 'InvalidOnchainTicker'
  | 'InvalidInvoiceHash'
  | 'InvalidMarket'
  | 'NoQuoteProvidersForTheRequestedMarket'
  | 'NoQuoteProvidersAvailable'
  | 'InvalidOrderId'
  | 'OrderNotFound'
  // a request the HTTP layer cannot make sense of (bad percent-encoding, unparseable request line)
  | 'BadRequest'
  // quote requests
  | 'InvalidOrMissingQuoteRequestFields'
  | 'InvalidInvoice'
  | 'InvalidMarketForInvoice'
  | 'InvalidRefundAddress'
  | 'InvoiceExpiresTooSoon'
  | 'InvoiceAmountBelowMinimum'
  | 'InvoiceAmountAboveMaximum'
  | 'NoQuotesAvailable'
  | 'SwapAlreadyInProgress'
  | 'TooManySwapsInFlight'
  // maker quotes
  | 'InvalidOrMissingQuoteFields'
  | 'InvalidPayToAddress'
  | 'InvalidRedeemScript'
  | 'TimelockIsOutOfBounds'
  | 'QuoteExpiryIsOutOfBounds'
  | 'QuoteSubmittedTooLate'
  | 'InvalidFundTxValue'
  | 'InvalidContractData'
  | 'ContractIsNotWhitelisted'
  // providers and sockets
  | 'InvalidOrMissingCredentials'
  | 'InvalidOrMissingMarkets'
  | 'InvalidOrMissingActiveConfigurationFields'
  | 'InvalidPreimage'
  // a paymentResult for an order whose funds are not (or no longer) confirmed in the HTLC
  | 'OrderNotFunded'
  | 'InvalidNetworkOrSubnet'
  | 'RateLimitExceeded'
  | 'PayloadTooLarge'
  // the database cannot be reached right now; the request may be repeated
  | 'ServiceUnavailable';

export class LnswapError extends Error {
  constructor(readonly token: ErrorToken) {
    super(token);
    this.name = 'LnswapError';
  }
}

export function isLnswapError(error: unknown): error is LnswapError {
  return error instanceof LnswapError;
}

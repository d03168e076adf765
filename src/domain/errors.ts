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
  // broadcastTransaction (REDSHIFT's tokens where it has one)
  | 'InvalidOrMissingBroadcastTxRequestFields'
  | 'InvalidSignedTxHex'
  // no node of the ticker's chain and network is configured on this service
  | 'NoBackendConfigured'
  // the node refused the transaction (nonce too low, fee too small, ...); its reason goes to the log
  | 'TransactionRejected'
  | 'RateLimitExceeded'
  | 'PayloadTooLarge';

export class LnswapError extends Error {
  constructor(readonly token: ErrorToken) {
    super(token);
    this.name = 'LnswapError';
  }
}

export function isLnswapError(error: unknown): error is LnswapError {
  return error instanceof LnswapError;
}

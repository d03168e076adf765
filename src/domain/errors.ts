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
  // order subscriptions: sinceSequence not a non-negative integer
  | 'InvalidSinceSequence'
  | 'OrderNotFound'
  // refund details by funder: not an Ethereum address; no slot of the order's terms funded from it; an order
  // without slots (Bitcoin, one HTLC)
  | 'InvalidFunder'
  | 'SlotNotFound'
  | 'OrderHasNoSlots'
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
  // an earlier order of the payment hash left the live states (fund window elapsed, completed, refunded)
  | 'InvoiceAlreadyHadOrder'
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
  // an Ethereum funding whose claimer is not the payout address the operator registered for the quoting provider
  | 'ClaimerIsNotPayoutAddress'
  // an Ethereum quote from a provider the operator registered no payout address for
  | 'ProviderHasNoPayoutAddress'
  // providers and sockets
  | 'InvalidOrMissingCredentials'
  | 'InvalidOrMissingMarkets'
  | 'InvalidOrMissingActiveConfigurationFields'
  | 'InvalidPreimage'
  // a paymentResult from a provider whose quote did not win the order
  | 'OrderNotWonByProvider'
  // a paymentResult whose failedReason is not one of REDSHIFT's PaymentFailedReason values
  | 'InvalidFailedReason'
  // a paymentResult for an order whose funds are not (or no longer) confirmed in the HTLC
  | 'OrderNotFunded'
  // refundAuthorization: not { orderId, refunds: [{ funder, signature }, ...] } with addresses and 65-byte low-s
  // signatures; a signature that does not recover to the order's claimer for that slot (forged, another slot's,
  // another contract's or chain's); an order made on a contract without cooperative refunds (before the third)
  | 'InvalidOrMissingRefundAuthorizationFields'
  | 'InvalidRefundSignature'
  | 'ContractHasNoCooperativeRefund'
  // requestCancel: not { orderId, funder, signature }; a signature that does not recover to the funder, or a funder
  // with no slot of the order; the winning provider is not connected, or refused because it is paying the invoice
  // or has paid it, or found no slot left to refund
  | 'InvalidOrMissingCancelFields'
  | 'InvalidCancelSignature'
  | 'ProviderUnreachable'
  | 'PaymentInProgress'
  | 'NothingToRefund'
  | 'InvalidNetworkOrSubnet'
  // broadcastTransaction (REDSHIFT's tokens where it has one)
  | 'InvalidOrMissingBroadcastTxRequestFields'
  | 'InvalidSignedTxHex'
  // no node of the ticker's chain and network is configured on this service
  | 'NoBackendConfigured'
  // the node refused the transaction (nonce too low, fee too small, ...); its reason goes to the log
  | 'TransactionRejected'
  | 'RateLimitExceeded'
  // a connection refused: its address has too many open already (socket.io connect_error message)
  | 'TooManyConnections'
  | 'PayloadTooLarge'
  // a socket.io payload no event could take: nested too deep, or binary
  | 'InvalidPayload'
  // a socket.io event the service does not handle
  | 'UnknownEvent'
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

/** What an HTTP client is told of a failure that is not its doing (a 500's body); the details go to the log only. */
export const FAILURE_MESSAGE = 'Something went wrong';

/**
 * What a socket.io client is told of a failure that is not its doing (a bug, a database outage, a request
 * that took too long), as a failed ack's message: REDSHIFT's clients know this token. The details go to the
 * log only.
 */
export const INTERNAL_SERVER_ERROR = 'InternalServerError';

/** The first line of an error's message (or of what was thrown), for a log line or a one-line report. */
export function firstLineOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

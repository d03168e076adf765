// Every refusal the page can meet, as a sentence a person understands: the service's tokens, the wallet's and the
// page's own, in one place.

const SENTENCES = {
  InvalidInvoice: 'That is not a Lightning invoice this service can read: copy the whole invoice, starting with "ln".',
  InvoiceWithoutAmount: 'This invoice leaves the amount to the payer; ask the payee for an invoice with an amount.',
  InvoiceExpired: 'This invoice has expired; ask the payee for a new one.',
  InvalidMarket: 'This service no longer offers that market.',
  InvalidMarketForInvoice: "The invoice belongs to another Lightning network than the market's.",
  NoQuoteProvidersAvailable: 'No provider is online just now, so nobody can pay the invoice; try again later.',
  NoQuoteProvidersForTheRequestedMarket: 'No provider serves this market just now; pick another one or try later.',
  InvoiceExpiresTooSoon: 'The invoice expires too soon for a swap to finish; ask the payee for one that lasts longer.',
  InvoiceAmountBelowMinimum: 'The invoice asks for less than the providers pay; ask the payee for a larger invoice.',
  InvoiceAmountAboveMaximum: 'The invoice asks for more than the providers pay; ask the payee for smaller invoices.',
  SwapAlreadyInProgress: 'This invoice already has a swap; follow it on the tracker page or ask for a new invoice.',
  TooManySwapsInFlight: 'The service has too many swaps under way just now; try again in a minute.',
  NoQuotesAvailable: 'No provider offered a price in time; try again in a moment.',
  InvalidRefundAddress: 'That refund address cannot be used: give a P2PKH or P2WPKH address of the right network.',
  TooManyRequests: 'Too many requests from this address; wait a moment and try again.',
  ServiceUnavailable: 'The service cannot reach its database just now; try again in a moment.',
  NoWallet: 'No browser wallet was found: install one (such as MetaMask) or pay from another device.',
  WalletRefused: 'The wallet refused the request.',
  WrongChain: 'The wallet is on another chain than the market and did not switch.',
  TransactionReverted: 'The transaction failed on chain; nothing was paid.',
  UnsafeFundingDetails: "The service's funding details would not pay this invoice, so nothing was sent.",
  ServiceTimeout: 'The service did not answer in time; check the connection and try again.',
  FundWindowElapsed: 'The time to fund this quote has passed: ask for a new quote.',
};

/** The sentence for a token, or one that still says what happened when the token is new to the page. */
export function sentence(token) {
  return SENTENCES[token] ?? `The service refused: ${token}.`;
}

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
  InvoiceAlreadyHadOrder:
    'This invoice already had a swap, whose address may still be paid late; ask the payee for a new invoice.',
  TooManySwapsInFlight: 'The service has too many swaps under way just now; try again in a minute.',
  NoQuotesAvailable: 'No provider offered a price in time; try again in a moment.',
  InvalidRefundAddress: 'That refund address cannot be used: give a P2PKH or P2WPKH address of the right network.',
  TooManyRequests: 'Too many requests from this address; wait a moment and try again.',
  ServiceUnavailable: 'The service cannot reach its database just now; try again in a moment.',
  NoWallet: 'No browser wallet was found: install one (such as MetaMask) or pay from another device.',
  WalletRefused: 'The wallet refused the request.',
  WrongChain: 'The wallet is on another chain than the market and did not switch.',
  TransactionReverted: 'The transaction failed on chain; nothing was paid.',
  ServiceTimeout: 'The service did not answer in time; check the connection and try again.',
  FundWindowElapsed: 'The time to fund this quote has passed: ask for a new quote.',
  ContractCheckFailed: "Your wallet's node did not answer when the page checked the swap contract; nothing was sent.",
  TokenCheckFailed:
    "Your wallet's node did not say how many decimals the token has, so the amount cannot be checked; nothing was sent.",
  ImplausibleBlockHeight:
    'This service reports a Bitcoin height the chain cannot have reached yet, so the refund height it quotes could be years away; no address to pay is shown.',
  UnsafeRefund:
    "This service's refund details would not bring your coins back to you from the swap you paid; nothing was sent or signed.",
  UnknownBlockHeight:
    "The service did not say how far the Bitcoin chain is, so the swap's refund height cannot be checked; no address to pay is shown.",
};

/**
 * What a check of the client library found wrong with the service's funding details (`UnsafeFundingDetails`'s
 * `fault`), by family: the first half of a sentence; the second says what the page did on that chain.
 */
const UNSAFE_FAULTS = {
  NotSwapContract: 'This service asked you to pay an address that is not a swap contract',
  WrongContract: "This service's transactions would hand your coins to another address than the swap contract",
  RefundDelayTooLong: 'This swap would keep your coins for more than two weeks if the payment failed',
  WrongTimelock: "This swap's refund does not open at the block it states, or is open already",
  WrongPaymentHash: "This service's swap is not locked to your invoice, so paying it would not pay the invoice",
  WrongScript: 'This service asked you to pay a Bitcoin script that is not a swap',
  WrongAddress: "This service asked you to pay a Bitcoin address that is not the swap's own",
  WrongNetwork: "This service asked you to pay an address of another Bitcoin network than the market's",
  WrongRefundKey: 'This swap would refund another address than the one you gave',
  UnusableRefundAddress: 'The refund address you gave has no key a swap can refund to (use a P2WPKH or P2PKH address)',
  QuoteExpired: 'The time to fund this quote has passed, so ask for a new quote',
};
/** Any other fault: the amount, the token, the function or the order is not the quote's own. */
const OTHER_FAULT = "This service's funding details do not match its own quote";

/** What the page did about an unsafe quote: it sends nothing on Ethereum, and shows no Bitcoin address to pay. */
const OUTCOMES = { ethereum: 'nothing was sent', bitcoin: 'no address to pay is shown' };

/** The sentence for a token, or one that still says what happened when the token is new to the page. */
export function sentence(token) {
  return SENTENCES[token] ?? `The service refused: ${token}.`;
}

/** The sentence for a refusal of the client library's checks (its `fault`), for a quote on `chain`. */
export function unsafeSentence(fault, chain) {
  return `${UNSAFE_FAULTS[fault] ?? OTHER_FAULT}; ${OUTCOMES[chain]}.`;
}

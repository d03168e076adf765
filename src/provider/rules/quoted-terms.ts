import { decodeInvoice } from '../../domain/invoice.js';

/**
 * The terms of a quote that money depends on, as the service repeats them in its answers: the invoice
 * (and its decoded amount and payment hash), the on-chain amount, and the funding's own terms (Ethereum:
 * claimer, contract, asset; Bitcoin: redeem script and address). Also the `field` label of
 * `lnswap_provider_service_mismatches_total`.
 */
export type QuotedTerm =
  | 'invoice'
  | 'invoiceAmount'
  | 'paymentHash'
  | 'amount'
  | 'claimer'
  | 'contract'
  | 'asset'
  | 'redeemScript'
  | 'payToAddress';

/** One term as the provider quoted it and as the service answers it, both spelled canonically by the caller. */
export interface TermReading {
  term: QuotedTerm;
  quoted: string;
  /** Undefined when the answer lacks the term or it cannot be read. */
  answered: string | undefined;
}

/**
 * `as-quoted`: every term is the provider's own. `another-quote`: the term that names the provider differs,
 * so the answer describes someone else's quote (an auction lost), which moves none of this provider's money.
 * `contradicts-quote`: the answer names this provider's quote with other terms: never believed, never paid.
 */
export type ServiceAnswer =
  { kind: 'as-quoted' } | { kind: 'another-quote' } | { kind: 'contradicts-quote'; differences: TermReading[] };

/**
 * Compares what the service answers with what the provider quoted, term by term. `ownedBy` is the term that
 * says whose quote the answer is (Ethereum: the claimer; Bitcoin: the redeem script, which names the order's
 * claim key); without it, any difference contradicts the quote.
 */
export function judgeServiceAnswer(readings: readonly TermReading[], ownedBy?: QuotedTerm): ServiceAnswer {
  const differences = readings.filter((reading) => reading.answered !== reading.quoted);
  if (differences.length === 0) return { kind: 'as-quoted' };
  if (ownedBy !== undefined && differences.some((reading) => reading.term === ownedBy)) {
    return { kind: 'another-quote' };
  }
  return { kind: 'contradicts-quote', differences };
}

/** The invoice a quote was made for: the invoice itself (unknown for quotes written before it was kept), its amount and hash. */
export interface QuotedInvoice {
  invoice?: string;
  paymentHash: string;
  invoiceAmountMillisatoshis: bigint;
}

/**
 * The readings of an invoice the service names against the one quoted: the invoice itself (BOLT11 is
 * case-insensitive), its decoded payment hash and its decoded amount. An unreadable invoice reads as
 * no hash and no amount.
 */
export function invoiceReadings(quoted: QuotedInvoice, answered: string): TermReading[] {
  const decoded = decodeInvoice(answered);
  const invoice: TermReading[] =
    quoted.invoice === undefined
      ? []
      : [{ term: 'invoice', quoted: quoted.invoice.toLowerCase(), answered: answered.toLowerCase() }];
  return [
    ...invoice,
    {
      term: 'invoiceAmount',
      quoted: quoted.invoiceAmountMillisatoshis.toString(),
      answered: decoded?.amountMillisatoshis?.toString(),
    },
    { term: 'paymentHash', quoted: quoted.paymentHash.toLowerCase(), answered: decoded?.paymentHash },
  ];
}

/** Whether `answered` is the invoice quoted for, by `judgeServiceAnswer`. */
export function judgeInvoice(quoted: QuotedInvoice, answered: string): ServiceAnswer {
  return judgeServiceAnswer(invoiceReadings(quoted, answered));
}

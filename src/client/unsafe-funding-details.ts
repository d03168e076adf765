/**
 * Why a wallet must not sign or pay what a service handed it. Each member names one fault a check found; the
 * message says it in words. A wallet tells a refusal from a bug by `instanceof UnsafeFundingDetails`.
 */
export type UnsafeFundingFault =
  | 'WrongChain'
  | 'MalformedQuote'
  | 'MalformedExpectations'
  | 'UnusableRefundAddress'
  | 'WrongScript'
  | 'WrongAddress'
  | 'WrongNetwork'
  | 'WrongRefundKey'
  | 'WrongTimelock'
  | 'MalformedRescueFile'
  | 'MalformedOutputs'
  | 'MissingFundingTransaction'
  | 'NothingToRefund'
  | 'WrongFunction'
  | 'WrongOrder'
  | 'WrongPaymentHash'
  | 'WrongAmount'
  | 'WrongToken'
  | 'WrongFunder'
  | 'MalformedTransaction'
  | 'MalformedSignature'
  | 'NotSwapContract'
  | 'RefundDelayTooLong'
  | 'QuoteExpired'
  | 'WrongContract'
  | 'NodeAnswerUnreadable'
  | 'SlotNotOpen'
  | 'RefundHeightNotReached';

/** The funding or refund details are not ones the wallet should sign or pay: `fault` says which check failed. */
export class UnsafeFundingDetails extends Error {
  readonly fault: UnsafeFundingFault;

  constructor(fault: UnsafeFundingFault, reason: string) {
    super(`the funding details cannot be sent: ${reason}`);
    this.name = 'UnsafeFundingDetails';
    this.fault = fault;
  }
}

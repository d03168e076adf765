/**
 * lnswap's client library (`@lnswap/client`): the whole user protocol of an lnswap service (docs/client.md), typed
 * by the server's own schemas, and the helpers a wallet needs to fund and refund an order.
 */
export {
  createLnswapClient,
  type LnswapClient,
  type LnswapClientOptions,
  type WaitForStateOptions,
} from './lnswap-client.js';
export { httpReads, invoiceHash, type HttpReads, type HttpReadsOptions } from './http-reads.js';
export {
  connectUserSocket,
  type BlockHeightSubscription,
  type BlockHeightTopic,
  type OrderStateSubscription,
  type OrderStateSubscriptionOptions,
  type QuoteRequest,
  type UserSocket,
  type UserSocketOptions,
} from './user-socket.js';
export {
  ethereumRefundTransaction,
  fundingTransactions,
  type EthereumTransaction,
  type FundingExpectations,
} from './ethereum-transactions.js';
export {
  verifySwapContract,
  type VerifiedSwapContract,
  type VerifySwapContractOptions,
} from './verify-swap-contract.js';
export {
  bitcoinRefundPsbt,
  finalizeBitcoinRefund,
  type BitcoinRefund,
  type BitcoinRefundOptions,
  type HtlcForm,
} from './bitcoin-refund-psbt.js';
export {
  bitcoinFundingAddress,
  type BitcoinFundingAddress,
  type BitcoinFundingExpectations,
} from './bitcoin-funding-address.js';
export {
  bitcoinRescueFile,
  bitcoinRescueRefund,
  type BitcoinRescueFile,
  type BitcoinRescueRefundOptions,
} from './bitcoin-rescue.js';
export {
  esploraOutputs,
  esploraTransactionsHex,
  type EsploraOptions,
  type EsploraOutput,
} from './bitcoin-rescue-outputs.js';
export {
  refundableSlots,
  type RefundableSlot,
  type RefundableSlotsOptions,
  type SlotReader,
} from './refundable-slots.js';
export { cancelOrderTypedData } from '../domain/cancel-order.js';
export { UnsafeFundingDetails, type UnsafeFundingFault } from './unsafe-funding-details.js';
export { ServiceRefusal, ServiceTimeout } from './service-refusal.js';
export { ServiceAnswerUnreadable } from './service-answer-unreadable.js';
export type { ShapeFault } from './shape-check.js';
export type * from './views.js';

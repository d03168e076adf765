/** The answers of the service as the client hands them out: the server's own response types (`src/wire`). */
export type {
  AckView,
  BlockHeightChangedView,
  BroadcastAnswerView,
  FundingDetailsView,
  MarketRequirementsView,
  MarketView,
  OrderSummaryView,
  OrderView,
  ProviderQuoteRequestView,
  RefundView,
  StateChangedView,
  TransactionView,
} from '../wire/response-shapes.js';
export type { OrderState } from '../domain/states.js';
export type { Network } from '../domain/markets.js';

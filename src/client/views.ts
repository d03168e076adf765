/** The answers of the service as the client hands them out: the server's own response types (`src/wire`). */
export type {
  AckView,
  BroadcastAnswerView,
  FundingDetailsView,
  OrderView,
  ProviderQuoteRequestView,
} from '../wire/response-shapes.js';

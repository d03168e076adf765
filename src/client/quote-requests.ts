import { providerQuoteRequestShape, type ProviderQuoteRequestView } from '../wire/response-shapes.js';
import { readShape } from './read-shape.js';

/** A `requestQuote` the service sent the provider, read against the shape the quote desk sends. */
export function readQuoteRequest(payload: unknown): ProviderQuoteRequestView {
  return readShape<ProviderQuoteRequestView>(providerQuoteRequestShape, payload, 'a requestQuote');
}

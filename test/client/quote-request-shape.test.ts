/** The `requestQuote` a provider reads is the one the quote desk sends: one type, checked by the compiler. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readQuoteRequest } from '../../src/client/quote-requests.js';
import { ServiceAnswerUnreadable } from '../../src/client/service-answer-unreadable.js';
import type { ProviderQuoteRequestView } from '../../src/client/views.js';
import type { ProviderQuoteRequest } from '../../src/engine/lifecycle/quote-desk.js';

/** True when each type is assignable to the other: a field renamed, added or retyped on one side makes it false. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test("the client's requestQuote type is the quote desk's, field for field", () => {
  const same: Same<ProviderQuoteRequestView, ProviderQuoteRequest> = true;
  assert.equal(same, true);
});

test('a requestQuote of another shape is refused, naming the field', () => {
  const sent: ProviderQuoteRequest = {
    orderId: 'order-1',
    market: 'ETH_LBTC',
    invoice: 'lnbcrt1invoice',
    requestExpiryTimestampMs: 1_000,
  };
  assert.deepEqual(readQuoteRequest(sent), sent);
  assert.throws(
    () => readQuoteRequest({ ...sent, requestExpiryTimestampMs: '1000' }),
    (error: unknown) =>
      error instanceof ServiceAnswerUnreadable &&
      error.faults[0]?.path === 'requestExpiryTimestampMs' &&
      error.faults[0].problem === 'not integer',
  );
});

import { reportRefundAuthorizations } from '../payments/report-refunds.js';
import { giveUp, type OrderFollowing } from './follow-orders.js';

/**
 * Answers a funder's cancel the service checked and forwarded: the order is given up (`giveUp`: every slot naming
 * the provider signed away, written down, then sent) unless a payment of it is in flight, suspect or done
 * (`PaymentInProgress`: that payment goes on and is claimed as usual; a failed one may be cancelled). Answers
 * `undefined` only once the service acknowledged the order's signed refunds, so the funder's ack means the refund
 * details already answer `CooperativeRefund`; `NothingToRefund` when no slot naming the provider holds money;
 * `OrderNotWonByProvider` for an order the provider does not follow.
 */
export async function cancelOrder(
  following: OrderFollowing,
  request: { orderId: string; funder: string },
): Promise<string | undefined> {
  const { state } = following;
  const quote = state.quote(request.orderId);
  const settlement = quote === undefined ? undefined : following.settlements.get(quote.market);
  if (quote === undefined || quote.closed || settlement === undefined) return 'OrderNotWonByProvider';
  const payment = state.paymentOfOrder(quote.orderId);
  if (payment !== undefined && payment.state !== 'failed') return 'PaymentInProgress';
  if ((await giveUp(following, settlement, quote)) === 'payment-under-way') return 'PaymentInProgress';
  if (state.refundSignatures(quote.orderId).length === 0) return 'NothingToRefund';
  const owed = () => state.unreportedRefundSignatures().some(({ orderId }) => orderId === quote.orderId);
  if (owed()) await reportRefundAuthorizations(state, following.sendRefunds);
  return owed() ? 'ProviderUnreachable' : undefined;
}

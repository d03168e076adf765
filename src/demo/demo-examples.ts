import type { OrderRecord } from '../domain/order.js';

export interface DemoExamples {
  /** A completed order, so Get Order shows the preimage. */
  readonly orderId: string;
  /** An invoice quoted on more than one market, so Get Orders lists several orders. */
  readonly invoiceHash: string;
  /** A Bitcoin order waiting for its refund, so Get Refund shows the HTLC and its UTXOs. */
  readonly refundOrderId: string;
}

/** Picks the demo's most telling records, falling back to the first order if a kind is missing. */
export function pickDemoExamples(orders: readonly OrderRecord[]): DemoExamples {
  const first = orders[0];
  if (first === undefined) throw new Error('the demo snapshot holds no orders');
  const completed = orders.find((order) => order.state === 'Complete' && order.paymentPreimage !== undefined);
  const ordersPerInvoice = new Map<string, number>();
  for (const { invoiceHash } of orders) ordersPerInvoice.set(invoiceHash, (ordersPerInvoice.get(invoiceHash) ?? 0) + 1);
  const shared = orders.find((order) => (ordersPerInvoice.get(order.invoiceHash) ?? 0) > 1);
  const refundable = orders.find(
    (order) => order.state === 'WaitingForRefundTx' && order.htlc.redeemScript !== undefined,
  );
  return {
    orderId: (completed ?? first).id,
    invoiceHash: (shared ?? first).invoiceHash,
    refundOrderId: (refundable ?? first).id,
  };
}

export function demoBanner(url: string, examples: DemoExamples): string {
  return `lnswap demo is serving at ${url} (demo database: ./data/demo.sqlite)

Follow orders in a browser: ${url}/ (e.g. ${url}/orders/${examples.refundOrderId})

Try:
  curl -s ${url}/api/orders/${examples.orderId}
  curl -s '${url}/api/orders?invoiceHash=${examples.invoiceHash}'
  curl -s ${url}/api/orders/${examples.refundOrderId}/refund

Press Ctrl+C to stop.
`;
}

/**
 * The service refused a request with one of its error tokens (docs/interface.md, docs/websocket.md): the HTTP
 * body of a 4xx or 5xx, or the message of a `{ success: false }` acknowledgement. Match on `token`.
 */
export class ServiceRefusal extends Error {
  constructor(
    /** The service's error token: `InvoiceAmountBelowMinimum`, `OrderNotFound`, `InternalServerError`... */
    readonly token: string,
    /** What was asked: `GET /api/orders/<id>`, `requestQuote`. */
    readonly what: string,
    /** The HTTP status, for a read of the HTTP API. */
    readonly status?: number,
  ) {
    super(status === undefined ? `${what}: refused with ${token}` : `${what}: HTTP ${status} ${token}`);
    this.name = 'ServiceRefusal';
  }
}

/** No answer came within the time the client waits: the service, or the way to it, is down or too slow. */
export class ServiceTimeout extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what}: no answer within ${timeoutMs} ms`);
    this.name = 'ServiceTimeout';
  }
}

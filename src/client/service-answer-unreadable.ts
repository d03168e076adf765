import type { ShapeFault } from './shape-check.js';

/** The service answered something that is not of the shape its schema gives: a field missing, renamed or mistyped. */
export class ServiceAnswerUnreadable extends Error {
  constructor(
    /** What was read: `GET /api/orders/<id>`, the `paymentResult` acknowledgement. */
    readonly what: string,
    readonly faults: readonly ShapeFault[],
  ) {
    super(
      `${what}: the service answered another shape (${faults.map((f) => `${f.path || '(answer)'} ${f.problem}`).join('; ')})`,
    );
    this.name = 'ServiceAnswerUnreadable';
  }
}

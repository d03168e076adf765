/** A snapshot that cannot be imported; the message is one line naming the first bad record and field. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotError';
  }
}

/** A bad field inside one record; the caller adds which record it was. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'FieldError';
  }
}

/** `orders[3] (id …): htlc.redeemScript: required …`, or without a field when the record itself is wrong. */
export function recordError(record: string, error: FieldError): SnapshotError {
  return new SnapshotError(error.field === '' ? `${record}: ${error.problem}` : `${record}: ${error.message}`);
}

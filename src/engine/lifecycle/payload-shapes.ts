/** Reading payloads that arrive as untyped JSON: their shape checked by a compiled JSON schema, or by a guard. */
import { Ajv, type ErrorObject } from 'ajv';
import { LnswapError, type ErrorToken } from '../../domain/errors.js';
import type { PayloadShape } from '../../wire/socket-payloads.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Stops at the first fault, checking `required` and then the properties in schema order: the order tokens are
// documented in, so a client learns about the first problem first.
const ajv = new Ajv({ allErrors: false, allowUnionTypes: true, strict: true });

/** The field a validation fault is about: the missing one, or the first segment of the failing path. */
function faultyField(error: ErrorObject): string {
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  if (typeof missing === 'string') return missing;
  return error.instancePath.split('/')[1] ?? '';
}

function tokenOf(error: ErrorObject | undefined, { token, tokensByField = {} }: PayloadShape): ErrorToken {
  if (error === undefined) return token;
  const field = faultyField(error);
  const byKeyword = `${field}/${error.keyword}`;
  if (Object.hasOwn(tokensByField, byKeyword)) return tokensByField[byKeyword]!;
  return Object.hasOwn(tokensByField, field) ? tokensByField[field]! : token;
}

/** A check of `shape`, compiled once: passes a payload of the shape, throws the shape's token for any other. */
export function payloadReader<T>(shape: PayloadShape): (payload: unknown) => T {
  const validate = ajv.compile<T>(shape.schema);
  return (payload) => {
    if (validate(payload)) return payload;
    throw new LnswapError(tokenOf(validate.errors?.[0], shape));
  };
}

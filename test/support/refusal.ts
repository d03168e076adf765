import assert from 'node:assert/strict';
import { LnswapError } from '../../src/domain/errors.js';

/** The kind of error that counts as a refusal; its message is what the helper returns. */
type RefusalKind = abstract new (...args: never[]) => Error;

function messageOf(error: unknown, kind: RefusalKind): string {
  assert.ok(error instanceof kind, `expected a ${kind.name}, got ${String(error as Error)}`);
  return error.message;
}

/**
 * What an action refuses with: thrown by `action`, or the rejection of the promise it returns or of
 * the promise given. By default a refusal is an `LnswapError` and the answer its token. Fails the
 * test when the action is accepted, or fails with another kind of error.
 */
export function refusal(action: Promise<unknown> | (() => Promise<unknown>), kind?: RefusalKind): Promise<string>;
export function refusal(action: () => unknown, kind?: RefusalKind): string;
export function refusal(
  action: Promise<unknown> | (() => unknown),
  kind: RefusalKind = LnswapError,
): string | Promise<string> {
  let result: unknown;
  try {
    result = typeof action === 'function' ? action() : action;
  } catch (error) {
    return messageOf(error, kind);
  }
  if (!(result instanceof Promise)) assert.fail('accepted');
  return result.then(
    () => assert.fail('accepted'),
    (error: unknown) => messageOf(error, kind),
  );
}

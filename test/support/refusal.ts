import assert from 'node:assert/strict';
import { LnswapError } from '../../src/domain/errors.js';

function tokenOf(error: unknown): string {
  assert.ok(error instanceof LnswapError, `expected a refusal token, got ${String(error as Error)}`);
  return error.token;
}

/**
 * The token an action refuses with: thrown by `action`, or the rejection of the promise it returns
 * or of the promise given. Fails the test when the action is accepted, or fails with anything but
 * an `LnswapError`.
 */
export function refusal(action: Promise<unknown> | (() => Promise<unknown>)): Promise<string>;
export function refusal(action: () => unknown): string;
export function refusal(action: Promise<unknown> | (() => unknown)): string | Promise<string> {
  let result: unknown;
  try {
    result = typeof action === 'function' ? action() : action;
  } catch (error) {
    return tokenOf(error);
  }
  if (!(result instanceof Promise)) assert.fail('accepted');
  return result.then(
    () => assert.fail('accepted'),
    (error: unknown) => tokenOf(error),
  );
}

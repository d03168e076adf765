import assert from 'node:assert/strict';
import { BaseError, decodeErrorResult, type Abi, type Hex } from 'viem';

/** The revert data a failed call or gas estimation carried. */
export function revertData(error: unknown): Hex {
  assert.ok(error instanceof BaseError, String(error));
  const withData = error.walk((cause) => typeof (cause as { data?: unknown }).data === 'string');
  const data = (withData as { data?: Hex } | null)?.data;
  assert.ok(data !== undefined, `no revert data in: ${error.shortMessage}`);
  return data;
}

/**
 * Asserts that a contract refused with exactly the custom error `errorName` of `abi` (viem surfaces it from gas
 * estimation, before anything is sent).
 */
export function revertAsserter(abi: Abi): (attempt: Promise<unknown>, errorName: string) => Promise<void> {
  return async (attempt, errorName) => {
    const error = await attempt.then(
      () => assert.fail(`expected the contract to revert with ${errorName}`),
      (caught: unknown) => caught,
    );
    assert.equal(decodeErrorResult({ abi, data: revertData(error) }).errorName, errorName);
  };
}

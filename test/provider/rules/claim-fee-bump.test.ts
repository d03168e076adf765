import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideClaimFee, type ClaimFeePolicy } from '../../../src/provider/rules/claim-fee-bump.js';

const policy: ClaimFeePolicy = {
  stuckAfterBlocks: 3,
  urgentBlocks: 10,
  bumpPercent: 150n,
  minimumIncrement: 1n,
  maximumRate: 100n,
};

describe('when a claim is fee-bumped', () => {
  test('the first claim goes out at the estimate, and raised when already near the refund height', () => {
    assert.deepEqual(decideClaimFee({ currentHeight: 100, refundHeight: 200, estimatedRate: 4n }, policy), {
      action: 'broadcast',
      rate: 4n,
      atRisk: false,
    });
    assert.deepEqual(decideClaimFee({ currentHeight: 195, refundHeight: 200, estimatedRate: 4n }, policy), {
      action: 'broadcast',
      rate: 6n,
      atRisk: true,
    });
  });

  test('a broadcast claim waits until stuck, then is replaced at a higher rate', () => {
    const broadcast = { height: 100, rate: 4n };
    assert.deepEqual(decideClaimFee({ currentHeight: 102, refundHeight: 200, estimatedRate: 4n, broadcast }, policy), {
      action: 'wait',
      atRisk: false,
    });
    assert.deepEqual(decideClaimFee({ currentHeight: 103, refundHeight: 200, estimatedRate: 4n, broadcast }, policy), {
      action: 'broadcast',
      rate: 6n,
      atRisk: false,
    });
  });

  test('a replacement pays at least the current estimate and at least the minimum increment', () => {
    const broadcast = { height: 100, rate: 1n };
    assert.deepEqual(decideClaimFee({ currentHeight: 103, refundHeight: 200, estimatedRate: 9n, broadcast }, policy), {
      action: 'broadcast',
      rate: 9n,
      atRisk: false,
    });
    assert.deepEqual(
      decideClaimFee(
        { currentHeight: 103, refundHeight: 200, estimatedRate: 1n, broadcast },
        { ...policy, bumpPercent: 110n },
      ),
      { action: 'broadcast', rate: 2n, atRisk: false },
      '1 × 110% rounds up to 2, the increment too',
    );
  });

  test('near the refund height every block without confirmation bumps, and the claim is at risk', () => {
    const broadcast = { height: 191, rate: 10n };
    assert.deepEqual(decideClaimFee({ currentHeight: 191, refundHeight: 200, estimatedRate: 10n, broadcast }, policy), {
      action: 'wait',
      atRisk: true,
    });
    assert.deepEqual(decideClaimFee({ currentHeight: 192, refundHeight: 200, estimatedRate: 10n, broadcast }, policy), {
      action: 'broadcast',
      rate: 15n,
      atRisk: true,
    });
  });

  test('at the maximum rate the claim cannot be raised further: capped, at risk', () => {
    const broadcast = { height: 191, rate: 100n };
    assert.deepEqual(
      decideClaimFee({ currentHeight: 195, refundHeight: 200, estimatedRate: 500n, broadcast }, policy),
      {
        action: 'capped',
        atRisk: true,
      },
    );
    assert.deepEqual(
      decideClaimFee(
        { currentHeight: 195, refundHeight: 200, estimatedRate: 500n, broadcast: { height: 191, rate: 90n } },
        policy,
      ),
      { action: 'broadcast', rate: 100n, atRisk: true },
    );
  });
});

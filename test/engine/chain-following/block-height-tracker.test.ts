import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockHeightTracker } from '../../../src/engine/chain-following/block-height-tracker.js';
import { BITCOIN_VIEW, ETHEREUM_VIEW } from '../../support/fixtures.js';

test('BlockHeightTracker reports changed heights only, after a silent baseline', () => {
  const tracker = new BlockHeightTracker();
  assert.deepEqual(tracker.update({ bitcoin: BITCOIN_VIEW, ethereum: ETHEREUM_VIEW }), []);
  assert.deepEqual(tracker.update({ bitcoin: BITCOIN_VIEW, ethereum: ETHEREUM_VIEW }), []);
  assert.deepEqual(tracker.update({ bitcoin: { ...BITCOIN_VIEW, blockHeight: 612101 }, ethereum: ETHEREUM_VIEW }), [
    { chain: 'bitcoin', height: 612101 },
  ]);
  assert.deepEqual(
    tracker.update({
      bitcoin: { ...BITCOIN_VIEW, blockHeight: 612102 },
      ethereum: { ...ETHEREUM_VIEW, blockHeight: 1 },
    }),
    [
      { chain: 'bitcoin', height: 612102 },
      { chain: 'ethereum', height: 1 },
    ],
  );
  assert.deepEqual(tracker.update({ bitcoin: { ...BITCOIN_VIEW, blockHeight: 612102 } }), []);
  assert.deepEqual(tracker.update({ bitcoin: { ...BITCOIN_VIEW, blockHeight: 612102 }, ethereum: ETHEREUM_VIEW }), [
    { chain: 'ethereum', height: ETHEREUM_VIEW.blockHeight },
  ]);
});

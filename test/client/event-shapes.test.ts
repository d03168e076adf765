/**
 * The events the service pushes on /user/v1 are read by the client against the shapes of src/wire: the server's
 * own event types and those shapes must stay one, in both directions, or a field added on one side would be
 * dropped or refused on the other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlockHeightChangedView, StateChangedView } from '../../src/client/index.js';
import { shapeFaults } from '../../src/client/shape-check.js';
import type { StateChangedEvent } from '../../src/engine/lifecycle/state-events.js';
import { blockHeightChangedShape, stateChangedShape } from '../../src/wire/response-shapes.js';
import type { BlockHeightChange } from '../../src/engine/chain-following/block-height-tracker.js';

// Compiles only while each type assigns to the other.
const asView = (event: StateChangedEvent): StateChangedView => event;
const asEvent = (view: StateChangedView): StateChangedEvent => view;
const heightAsView = (change: BlockHeightChange, subnet: string): BlockHeightChangedView => ({
  network: change.chain,
  subnet,
  height: change.height,
});

test('stateChanged and blockHeightChanged as the server writes them are of the shapes the client reads', () => {
  const event: StateChangedEvent = {
    orderId: 'd496f935-5019-4bb4-9e32-5d9ea5f809ca',
    state: 'Complete',
    sequence: 4,
    preimage: 'ab'.repeat(32),
  };
  assert.deepEqual(asEvent(asView(event)), event);
  assert.deepEqual(shapeFaults(stateChangedShape, event), []);
  assert.deepEqual(shapeFaults(stateChangedShape, { ...event, state: 'Paid' }), [
    { path: 'state', problem: 'not one of the values it may take' },
  ]);
  assert.deepEqual(shapeFaults(stateChangedShape, { ...event, sequence: 0 }), [
    { path: 'sequence', problem: 'too small' },
  ]);
  const height = heightAsView({ chain: 'ethereum', height: 12 }, 'kovan_testnet');
  assert.deepEqual(shapeFaults(blockHeightChangedShape, height), []);
});

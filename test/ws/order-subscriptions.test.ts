import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Socket } from 'socket.io';
import type { StateChangedEvent } from '../../src/engine/lifecycle/state-events.js';
import type { OrderState } from '../../src/domain/states.js';
import { OrderSubscriptions } from '../../src/ws/order-subscriptions.js';
import { eventually, silentLogger } from '../support/ws/harness.js';

const orderId = 'd496f935-5019-4bb4-9e32-5d9ea5f809ca';
const STATES: OrderState[] = ['WaitingForFundingTx', 'WaitingForFundingTxConfirmation', 'Funded', 'Complete'];
const event = (sequence: number): StateChangedEvent => ({
  orderId,
  state: STATES[sequence - 1] as OrderState,
  sequence,
});

// The ordering rules alone, with the socket reduced to what they use: the events are driven out of order on
// purpose, which real instances do only by chance (test/ws/order-sequence.test.ts runs them for real).
function recordingSocket(): { socket: Socket; sent: number[] } {
  const sent: number[] = [];
  const socket = { id: 'socket-1', emit: (_name: string, payload: StateChangedEvent) => sent.push(payload.sequence) };
  return { socket: socket as unknown as Socket, sent };
}

describe('OrderSubscriptions', () => {
  test('an event ahead of the next expected one waits while the gap is read from the store', async () => {
    let stored = 1;
    let reads = 0;
    const subscriptions = new OrderSubscriptions(async (_id, after) => {
      reads += 1;
      return Array.from({ length: Math.max(0, stored - after) }, (_, index) => event(after + 1 + index));
    }, silentLogger);
    const { socket, sent } = recordingSocket();
    await subscriptions.subscribe(socket, orderId);
    assert.deepEqual(sent, [], 'no event for the current state');

    stored = 3;
    subscriptions.deliver(event(3));
    await eventually(() => sent.length === 2, 'the gap filled');
    subscriptions.deliver(event(2));
    subscriptions.deliver(event(3));
    stored = 4;
    subscriptions.deliver(event(4));
    assert.deepEqual(sent, [2, 3, 4], 'in sequence, each once');
    assert.equal(reads, 2, 'only the gap made a read');

    subscriptions.forget(socket);
    subscriptions.deliver(event(4));
    assert.equal(subscriptions.size, 0);
  });

  test('sinceSequence replays the stored states after it before any live event', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const subscriptions = new OrderSubscriptions(async (_id, after) => {
      await held;
      return [1, 2, 3].filter((sequence) => sequence > after).map(event);
    }, silentLogger);
    const { socket, sent } = recordingSocket();
    const subscribed = subscriptions.subscribe(socket, orderId, 1);
    subscriptions.deliver(event(3));
    release();
    await subscribed;
    assert.deepEqual(sent, [2, 3]);
  });
});

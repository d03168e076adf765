import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StateChangedEvent } from '../../src/engine/lifecycle/state-events.js';
import type { RunningService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import type { StateTransition } from '../../src/store/store.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { buildOrder } from '../support/fixtures.js';
import { skipReason, STORE_KINDS } from '../support/stores.js';
import {
  connectClient,
  eventually,
  recordEvents,
  refusalOf,
  startOnStore,
  startTestService,
  succeed,
  type Client,
  type TestService,
} from '../support/ws/harness.js';

const FUND = { type: 'FUND' as const, id: 'e'.repeat(64), amount: 35_590n, outputIndex: 0 };

function moves(orderId: string, preimage: string): StateTransition[] {
  const at = Date.now();
  return [
    {
      orderId,
      from: 'WaitingForFundingTx',
      to: 'WaitingForFundingTxConfirmation',
      at,
      transaction: FUND,
      cause: MOVE_CAUSE,
    },
    { orderId, from: 'WaitingForFundingTxConfirmation', to: 'Funded', at, cause: MOVE_CAUSE },
    { orderId, from: 'Funded', to: 'Complete', at, paymentPreimage: preimage, cause: MOVE_CAUSE },
  ];
}

for (const kind of STORE_KINDS) {
  describe(
    `stateChanged in sequence, and what a reconnecting subscriber missed (${kind})`,
    { skip: skipReason(kind) },
    () => {
      const reconnecting = buildOrder({ label: 'reconnecting', createdAt: Date.now() });
      const raced = buildOrder({ label: 'raced', createdAt: Date.now() });
      let harness: TestService;
      // A second instance on the same database, reached by its own clients (PostgreSQL only).
      let storeB: Store | undefined;
      let instanceB: RunningService | undefined;
      const clientsOfB: Client[] = [];

      before(async () => {
        harness = await startTestService(kind, {
          orders: [reconnecting.record, raced.record],
          sockets: { clusterHeartbeatIntervalMs: 100, clusterHeartbeatTimeoutMs: 1_000 },
        });
        if (kind === 'postgres') {
          storeB = await openStore(harness.fresh.url);
          instanceB = await startOnStore(storeB, harness.fresh.url, {
            sockets: { clusterHeartbeatIntervalMs: 100, clusterHeartbeatTimeoutMs: 1_000 },
          });
        }
      });
      after(async () => {
        for (const client of clientsOfB) client.close();
        await instanceB?.close();
        await storeB?.close();
        await harness?.close();
      });

      /** On PostgreSQL, the instance the moves are not made on. */
      async function connectElsewhere(): Promise<Client> {
        if (instanceB === undefined) return harness.connect('/user/v1');
        const client = await connectClient(instanceB.url, '/user/v1');
        clientsOfB.push(client);
        return client;
      }

      test('a subscriber that reconnects with sinceSequence gets the states it missed, in order, then live ones', async () => {
        const orderId = reconnecting.record.id;
        const [toConfirmation, toFunded, toComplete] = moves(orderId, reconnecting.preimage) as [
          StateTransition,
          StateTransition,
          StateTransition,
        ];
        const first = await connectElsewhere();
        const seenFirst = recordEvents<StateChangedEvent>(first, 'stateChanged');
        await succeed(first, 'subscribeToOrderState', { orderId });
        assert.equal(await harness.service.transitions.apply(toConfirmation), true);
        await eventually(() => seenFirst.length === 1, 'the first move');
        assert.deepEqual(seenFirst, [
          { orderId, state: 'WaitingForFundingTxConfirmation', sequence: 2, transactionId: FUND.id },
        ]);
        first.close();

        assert.equal(await harness.service.transitions.apply(toFunded), true);
        const second = await connectElsewhere();
        const seenSecond = recordEvents<StateChangedEvent>(second, 'stateChanged');
        await succeed(second, 'subscribeToOrderState', { orderId, sinceSequence: 2 });
        // What was missed is sent before the subscription is acknowledged.
        assert.deepEqual(seenSecond, [{ orderId, state: 'Funded', sequence: 3, transactionId: FUND.id }]);
        assert.equal(await harness.service.transitions.apply(toComplete), true);
        await eventually(() => seenSecond.length === 2, 'the live move');
        await sleep(100);
        assert.deepEqual(seenSecond.at(-1), {
          orderId,
          state: 'Complete',
          sequence: 4,
          preimage: reconnecting.preimage,
        });
        assert.equal(seenSecond.length, 2, 'nothing is sent twice');

        const fromTheStart = await connectElsewhere();
        const replayed = recordEvents<StateChangedEvent>(fromTheStart, 'stateChanged');
        await succeed(fromTheStart, 'subscribeToOrderState', { orderId, sinceSequence: 0 });
        assert.deepEqual(
          replayed.map((event) => [event.sequence, event.state]),
          [
            [1, 'WaitingForFundingTx'],
            [2, 'WaitingForFundingTxConfirmation'],
            [3, 'Funded'],
            [4, 'Complete'],
          ],
        );
      });

      test('subscribing while the order moves gives every state once, in sequence, without gaps', async () => {
        const orderId = raced.record.id;
        const subscribers = await Promise.all(Array.from({ length: 6 }, () => connectElsewhere()));
        const seen = subscribers.map((client) => recordEvents<StateChangedEvent>(client, 'stateChanged'));
        const moving = (async () => {
          for (const move of moves(orderId, raced.preimage)) {
            assert.equal(await harness.service.transitions.apply(move), true);
          }
        })();
        await Promise.all(
          subscribers.map((client, index) =>
            succeed(client, 'subscribeToOrderState', { orderId, sinceSequence: index % 3 }),
          ),
        );
        await moving;
        await eventually(
          () => seen.every((events) => events.at(-1)?.sequence === 4),
          'every subscriber to reach Complete',
        );
        await sleep(100);
        seen.forEach((events, index) => {
          const expected = Array.from({ length: 4 - (index % 3) }, (_, offset) => (index % 3) + 1 + offset);
          assert.deepEqual(
            events.map((event) => event.sequence),
            expected,
            `subscriber ${index} from ${index % 3}`,
          );
        });
      });

      test('sinceSequence must be a non-negative integer', async () => {
        const user = await harness.connect('/user/v1');
        for (const sinceSequence of [-1, 1.5, '2', {}, 2 ** 60]) {
          assert.equal(
            await refusalOf(user, 'subscribeToOrderState', { orderId: reconnecting.record.id, sinceSequence }),
            'InvalidSinceSequence',
          );
        }
      });
    },
  );
}

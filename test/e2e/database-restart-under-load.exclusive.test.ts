/**
 * Stops and starts the local PostgreSQL cluster while two instances are under load, so scripts/run-tests.mjs runs
 * this file alone, after the others (the `.exclusive.test.ts` suffix). It always leaves PostgreSQL running.
 *
 * The load: HTTP reads in several loops on both instances, an auction after another (user on A, provider on B),
 * orders moved on A through the service's transitions, and users on B following those orders over socket.io.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { OrderState } from '../../src/domain/states.js';
import type { StateChangedEvent } from '../../src/engine/lifecycle/state-events.js';
import type { RunningService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import type { Store } from '../../src/store/store.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { buildOrder, configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, POSTGRES_URL, skipReason, type FreshStore } from '../support/stores.js';
import {
  addProvider,
  connectClient,
  eventually,
  startOnStore,
  succeed,
  type Ack,
  type Client,
} from '../support/ws/harness.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { noLocalCluster, pgCluster, postgresIsRunning } from '../support/postgres-cluster.js';

const ORDERS = 12;
const HTTP_LOOPS = 4;
/** A request not answered within this is a hang. */
const HTTP_TIMEOUT_MS = 5_000;
const QUOTE_DEADLINE_MS = 500;
/** An ack later than the quote deadline plus this is a hang. */
const ACK_BOUND_MS = 3_000;
const OUTAGE_MS = 3_000;
const RECOVERY_LIMIT_MS = 10_000;
/** What a refused request may say while the database is down or just back (no provider heard yet). */
const REFUSAL_TOKENS = new Set(['ServiceUnavailable', 'NoQuotesAvailable']);

async function adminQuery<Row extends pg.QueryResultRow>(sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Outcome {
  readonly instance: 'A' | 'B';
  readonly startedAt: number;
  readonly endedAt: number;
  /** HTTP status, or 'timeout' when not answered within the bound, or 'error' when the connection failed. */
  readonly status: number | 'timeout' | 'error';
  readonly body: string;
}

interface Committed {
  readonly orderId: string;
  readonly sequence: number;
  readonly state: OrderState;
  readonly at: number;
}

interface AckOutcome {
  readonly startedAt: number;
  readonly endedAt: number;
  /** Undefined when no ack came within the bound. */
  readonly ack: Ack | undefined;
}

/** Resolves with the ack, or undefined after `boundMs`. */
function ackWithin(client: Client, event: string, payload: unknown, boundMs: number): Promise<Ack | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), boundMs);
    client.emit(event, payload, (ack: Ack) => {
      clearTimeout(timer);
      resolve(ack);
    });
  });
}

async function timedGet(instance: 'A' | 'B', url: string): Promise<Outcome> {
  const startedAt = Date.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
    const body = await response.text();
    return {
      instance,
      startedAt,
      endedAt: Date.now(),
      status: response.status,
      body: response.status === 200 ? '' : body,
    };
  } catch (error) {
    const status = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'error';
    return { instance, startedAt, endedAt: Date.now(), status, body: String(error) };
  }
}

/** Funding seen, then reorged out: the state machine's one cycle, so an order can move as often as the test likes. */
function nextState(state: OrderState): OrderState {
  return state === 'WaitingForFundingTx' ? 'WaitingForFundingTxConfirmation' : 'WaitingForFundingTx';
}

describe(
  'PostgreSQL stopped and started while two instances serve HTTP reads, auctions and subscribers',
  { skip: skipReason('postgres') || noLocalCluster },
  () => {
    const orders = Array.from({ length: ORDERS }, (_, index) =>
      buildOrder({ label: `loaded-${index}`, createdAt: Date.now() }),
    );
    const orderIds = orders.map(({ record }) => record.id);
    let fresh: FreshStore;
    let storeB: Store;
    let a: RunningService;
    let b: RunningService;
    const clients: Client[] = [];
    const bots: RunningBot[] = [];

    before(async () => {
      fresh = await openFreshStore('postgres');
      await fresh.store.importAtomically(async (session) => {
        await session.writeConfiguration(configuration({ providers: [] }));
        await session.writeOrders(orders.map(({ record }) => record));
      });
      storeB = await openStore(fresh.url);
      // The flood limits stay out of the way: one user asks for an auction after another.
      const plenty = { burst: 10_000, perSecond: 10_000 };
      const overrides = {
        engine: { quoteDeadlineMs: QUOTE_DEADLINE_MS },
        sockets: {
          clusterHeartbeatIntervalMs: 100,
          clusterHeartbeatTimeoutMs: 1_000,
          quoteRequestsPerConnection: plenty,
          quoteRequestsPerAddress: plenty,
          eventsPerConnection: plenty,
          eventsPerAddress: plenty,
        },
      };
      a = await startOnStore(fresh.store, fresh.url, overrides);
      b = await startOnStore(storeB, fresh.url, overrides);
    });

    after(async () => {
      if (!postgresIsRunning()) await pgCluster('start');
      for (const client of clients) client.close();
      for (const { bot } of bots) bot.close();
      await a?.close();
      await b?.close();
      await storeB?.close();
      await fresh?.dispose();
    });

    test(
      'requests are refused with a token, never hang or fail; nothing is lost; subscribers catch up',
      { timeout: 90_000 },
      async (t) => {
        const keys = await addProvider(fresh.store, 'maker-on-b');
        bots.push(await runBot(b.url, keys, makerTerms('maker-on-b', 300n, 600_000)));
        await eventually(
          async () => (await fresh.store.getConfiguration()).providers.some((p) => p.active),
          'the maker to be active',
        );

        // One follower per order on B, from the order's first state; the first half stays connected throughout, the
        // second half loses its connection when the database stops and comes back with sinceSequence afterwards.
        const seen = new Map<string, StateChangedEvent[]>();
        const followers = new Map<string, Client>();
        for (const orderId of orderIds) {
          const client = await connectClient(b.url, '/user/v1');
          clients.push(client);
          const events: StateChangedEvent[] = [];
          client.on('stateChanged', (event: never) => events.push(event as StateChangedEvent));
          seen.set(orderId, events);
          followers.set(orderId, client);
          await succeed(client, 'subscribeToOrderState', { orderId, sinceSequence: 0 });
        }
        const dropping = orderIds.slice(ORDERS / 2);

        const states = new Map<string, { state: OrderState; sequence: number }>(
          orderIds.map((id) => [id, { state: 'WaitingForFundingTx', sequence: 1 }]),
        );
        /** Moves A's transitions reported committed. */
        const committed: Committed[] = [];
        let moveFailures = 0;
        const unsure = new Set<string>();
        const tryMove = async (orderId: string): Promise<Committed | undefined> => {
          try {
            if (unsure.has(orderId)) {
              // A move that failed may still have committed: read where the order is before moving it again.
              const history = await fresh.store.getOrderHistory(orderId);
              states.set(orderId, { state: history.at(-1)!.state, sequence: history.length });
              unsure.delete(orderId);
            }
            const { state: from, sequence } = states.get(orderId)!;
            const to = nextState(from);
            // Only this loop moves these orders, so a committed move is the order's next history row.
            if (!(await a.transitions.apply({ orderId, from, to, at: Date.now(), cause: MOVE_CAUSE }))) {
              throw new assert.AssertionError({ message: `${orderId} was not in ${from}` });
            }
            states.set(orderId, { state: to, sequence: sequence + 1 });
            const move = { orderId, sequence: sequence + 1, state: to, at: Date.now() };
            committed.push(move);
            return move;
          } catch (error) {
            if (error instanceof assert.AssertionError) throw error;
            moveFailures++;
            unsure.add(orderId);
            return undefined;
          }
        };
        // One move at a time, whoever asks: the loop's and the test's own moves of an order must not race.
        let lastMove = Promise.resolve<Committed | undefined>(undefined);
        const moveOnce = (orderId: string): Promise<Committed | undefined> => {
          const move = lastMove.then(() => tryMove(orderId));
          lastMove = move.catch(() => undefined);
          return move;
        };

        let running = true;
        const httpOutcomes: Outcome[] = [];
        const httpLoops = Array.from({ length: HTTP_LOOPS }, async (_, loop) => {
          const [instance, base] = loop % 2 === 0 ? (['A', a.url] as const) : (['B', b.url] as const);
          for (let i = loop; running; i++) {
            httpOutcomes.push(await timedGet(instance, `${base}/api/orders/${orderIds[i % ORDERS]!}`));
            await sleep(20);
          }
        });
        const quoteAcks: AckOutcome[] = [];
        const user = await connectClient(a.url, '/user/v1');
        clients.push(user);
        const auctions = (async () => {
          while (running) {
            const invoice = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 }).invoice;
            const startedAt = Date.now();
            const request = { market: 'BTC_LBTC', invoice, refundAddress: refundAddressFor('user') };
            const ack = await ackWithin(user, 'requestQuote', request, QUOTE_DEADLINE_MS + ACK_BOUND_MS);
            quoteAcks.push({ startedAt, endedAt: Date.now(), ack });
            await sleep(50);
          }
        })();
        const moves = (async () => {
          for (let i = 0; running; i++) {
            await moveOnce(orderIds[i % ORDERS]!);
            await sleep(50);
          }
        })();

        try {
          await eventually(
            () => quoteAcks.some(({ ack }) => ack?.success === true) && committed.length >= ORDERS,
            'an auction won and every order moved before the outage',
          );
          // The moves made just before the database goes away: each must be there afterwards.
          const lastBefore: Committed[] = [];
          for (const orderId of orderIds) {
            const move = await moveOnce(orderId);
            assert.ok(move, `${orderId} moved just before the stop`);
            lastBefore.push(move);
          }
          const before = await countRows(schemaOf(fresh.url));

          for (const orderId of dropping) followers.get(orderId)!.close();
          await pgCluster('stop');
          const downAt = Date.now();
          let subscribeDuringOutage: Ack | undefined;
          let upAt: number;
          try {
            const late = await connectClient(b.url, '/user/v1');
            clients.push(late);
            subscribeDuringOutage = await ackWithin(
              late,
              'subscribeToOrderState',
              { orderId: orderIds[0] },
              ACK_BOUND_MS,
            );
            await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt)));
          } finally {
            upAt = Date.now();
            await pgCluster('start');
          }
          const backAt = Date.now();

          // Recovered once both instances serve reads, an order moves and an auction is won, each after the return.
          const firstAfterReturn = () => [
            httpOutcomes.find((o) => o.instance === 'A' && o.startedAt >= backAt && o.status === 200)?.endedAt,
            httpOutcomes.find((o) => o.instance === 'B' && o.startedAt >= backAt && o.status === 200)?.endedAt,
            committed.find((move) => move.at >= backAt)?.at,
            quoteAcks.find((o) => o.startedAt >= backAt && o.ack?.success === true)?.endedAt,
          ];
          while (firstAfterReturn().includes(undefined) && Date.now() - backAt <= RECOVERY_LIMIT_MS) await sleep(50);
          const recoveredAt = firstAfterReturn();
          assert.ok(
            !recoveredAt.includes(undefined),
            `not recovered within ${RECOVERY_LIMIT_MS} ms: ${JSON.stringify(recoveredAt)}`,
          );
          const recoveredInMs = Math.max(...(recoveredAt as number[])) - backAt;
          running = false;
          await Promise.all([...httpLoops, auctions, moves]);
          const duringOutage = httpOutcomes.filter((o) => o.startedAt >= downAt && o.endedAt <= upAt);
          const acksDuringOutage = quoteAcks.filter((o) => o.startedAt >= downAt && o.endedAt <= upAt);
          const count = (list: Outcome[], status: number) => list.filter((o) => o.status === status).length;
          const slowest = (list: { startedAt: number; endedAt: number }[]) =>
            Math.max(0, ...list.map((o) => o.endedAt - o.startedAt));
          t.diagnostic(
            `database down ${upAt - downAt} ms; every kind of request served again ${recoveredInMs} ms after it was back`,
          );
          t.diagnostic(
            `HTTP: ${httpOutcomes.length} requests, ${count(httpOutcomes, 200)} served, ${count(httpOutcomes, 503)} refused (503); ` +
              `while down ${duringOutage.length}, ${count(duringOutage, 503)} refused, slowest answer ${slowest(duringOutage)} ms`,
          );
          t.diagnostic(
            `auctions: ${quoteAcks.length} acks, ${quoteAcks.filter(({ ack }) => ack?.success).length} won; while down ` +
              `${acksDuringOutage.length}, slowest ack ${slowest(acksDuringOutage)} ms; moves: ${committed.length} committed, ` +
              `${moveFailures} refused`,
          );

          // HTTP: never a hang, a connection error or a 500; refusals are 503 ServiceUnavailable; while the
          // database was down (whole requests between the stop and the start), every request was refused.
          const failures = httpOutcomes.filter(
            (o) => o.status !== 200 && !(o.status === 503 && o.body === 'ServiceUnavailable'),
          );
          assert.deepEqual(failures, [], 'every HTTP answer is 200 or 503 ServiceUnavailable');
          assert.ok(duringOutage.length >= 20, `${duringOutage.length} requests during the outage`);
          assert.deepEqual(
            duringOutage.filter((o) => o.status !== 503),
            [],
            'every request while the database is down is refused',
          );

          // socket.io: every ack arrives within the bound and is a quote or a token; during the outage, ServiceUnavailable.
          assert.deepEqual(
            quoteAcks.filter(
              ({ ack }) => ack === undefined || (!ack.success && !REFUSAL_TOKENS.has(String(ack.message))),
            ),
            [],
            'every requestQuote ack is a quote or a refusal token, within the bound',
          );
          assert.ok(acksDuringOutage.length >= 2, `${acksDuringOutage.length} auctions during the outage`);
          assert.deepEqual(
            acksDuringOutage.map(({ ack }) => ack),
            acksDuringOutage.map(() => ({ success: false, message: 'ServiceUnavailable' })),
          );
          assert.deepEqual(subscribeDuringOutage, { success: false, message: 'ServiceUnavailable' });

          // Nothing lost: every order, every history row from before, every move A reported committed.
          const schema = schemaOf(fresh.url);
          const afterwards = await countRows(schema);
          assert.ok(
            afterwards.orders >= before.orders && afterwards.rows >= before.rows,
            `orders ${before.orders} -> ${afterwards.orders}, history rows ${before.rows} -> ${afterwards.rows}`,
          );
          const history = await adminQuery<{ order_id: string; seq: number; state: string }>(
            `SELECT order_id, seq, state FROM "${schema}".order_state_history ORDER BY order_id, seq`,
          );
          const stored = new Set(history.map((row) => `${row.order_id}:${row.seq}:${row.state}`));
          assert.deepEqual(
            committed.filter((move) => !stored.has(`${move.orderId}:${move.sequence}:${move.state}`)),
            [],
            'every committed move is in the history',
          );
          const lastBeforeStored = lastBefore.filter((move) =>
            stored.has(`${move.orderId}:${move.sequence}:${move.state}`),
          );
          assert.equal(lastBeforeStored.length, ORDERS, 'the moves made just before the stop are stored');

          // One more move per order, then the dropped followers come back from the last sequence they saw.
          for (const orderId of orderIds) assert.ok(await moveOnce(orderId), `${orderId} moved after the outage`);
          for (const orderId of dropping) {
            const client = await connectClient(b.url, '/user/v1');
            clients.push(client);
            const events = seen.get(orderId)!;
            client.on('stateChanged', (event: never) => events.push(event as StateChangedEvent));
            await succeed(client, 'subscribeToOrderState', { orderId, sinceSequence: events.at(-1)?.sequence ?? 0 });
          }
          const finalHistory = await adminQuery<{ order_id: string; seq: number; state: string }>(
            `SELECT order_id, seq, state FROM "${schema}".order_state_history ORDER BY order_id, seq`,
          );
          for (const orderId of orderIds) {
            const expected = finalHistory.filter((row) => row.order_id === orderId).map((row) => [row.seq, row.state]);
            await eventually(
              () =>
                assert.deepEqual(
                  seen.get(orderId)!.map((event) => [event.sequence, event.state]),
                  expected,
                  orderId,
                ),
              `every state of ${orderId}, in sequence, once`,
            );
          }

          t.diagnostic(
            `followers: ${ORDERS - dropping.length} stayed connected, ${dropping.length} came back with sinceSequence; all ` +
              `${finalHistory.filter((row) => orderIds.includes(row.order_id)).length} states seen once, in order; the ${lastBeforeStored.length} moves made just before the stop stored`,
          );
        } finally {
          running = false;
        }
      },
    );
  },
);

async function countRows(schema: string): Promise<{ orders: number; rows: number }> {
  const [counts] = await adminQuery<{ orders: number; rows: number }>(
    `SELECT (SELECT count(*)::int FROM "${schema}".orders) AS orders,
            (SELECT count(*)::int FROM "${schema}".order_state_history) AS rows`,
  );
  return counts!;
}

function schemaOf(url: string): string {
  return new URL(url).searchParams.get('schema')!;
}

import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Quote, StateChanged } from '../../examples/user-client.js';
import { PostgresClusterBus } from '../../src/store/postgres/cluster-bus.js';
import { buildEngine, type Engine } from '../../src/engine/build-engine.js';
import { resolveEngineOptions } from '../../src/engine/operations/options.js';
import { attachSocketServer, type SocketServer } from '../../src/ws/server.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { testEngineOptions } from '../support/engine/helpers.js';
import { configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import {
  addProvider,
  connectClient,
  eventually,
  recordEvents,
  silentLogger,
  succeed,
  type Client,
} from '../support/ws/harness.js';

/** Nothing listens on port 1: the bus never connects, as while its database is down. */
const UNREACHABLE = { connectionString: 'postgres://lnswap@127.0.0.1:1/none' };

describe('an instance whose cluster bus is down serves its own sockets', () => {
  let fresh: FreshStore;
  let bus: PostgresClusterBus;
  let httpServer: HttpServer;
  let sockets: SocketServer;
  let engine: Engine;
  let url: string;
  const clients: Client[] = [];
  const bots: RunningBot[] = [];

  before(async () => {
    fresh = await openFreshStore('sqlite');
    await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
    bus = new PostgresClusterBus(UNREACHABLE, silentLogger);
    httpServer = createServer();
    sockets = await attachSocketServer(httpServer, {
      store: fresh.store,
      logger: silentLogger,
      bus,
      engine: testEngineOptions({ quoteDeadlineMs: 300 }),
    });
    engine = buildEngine({
      store: fresh.store,
      options: resolveEngineOptions(testEngineOptions({ quoteDeadlineMs: 300 })),
      outlets: sockets.outlets,
      now: Date.now,
      logger: silentLogger,
    });
    sockets.serve(engine);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const client of clients) client.close();
    for (const { bot } of bots) bot.close();
    await engine?.close();
    await sockets?.close();
    await bus?.close();
    httpServer?.close();
    await fresh?.dispose();
  });

  test('a quote request reaches the maker on this instance, and a move reaches its subscriber', async () => {
    assert.equal(bus.connectedSince(), undefined);
    bots.push(await runBot(url, await addProvider(fresh.store, 'maker-here'), makerTerms('maker-here', 300n, 600_000)));
    const user = await connectClient(url, '/user/v1');
    clients.push(user);
    await eventually(
      async () => (await fresh.store.getConfiguration()).providers.some((p) => p.active),
      'an active maker',
    );

    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 20_000n, expirySeconds: 7200 });
    const quote = (await succeed(user, 'requestQuote', { market: 'ETH_LBTC', invoice })) as Quote;
    assert.ok(bots[0]!.requests.some((asked) => asked.orderId === quote.orderId));

    const changes = recordEvents<StateChanged>(user, 'stateChanged');
    await succeed(user, 'subscribeToOrderState', { orderId: quote.orderId });
    await engine.transitions.apply({
      orderId: quote.orderId,
      from: 'WaitingForFundingTx',
      to: 'FundWindowElapsed',
      at: Date.now(),
      cause: { source: 'timer', reason: 'fundWindowElapsed' },
    });
    await eventually(() => changes.length === 1, 'the move');
    assert.deepEqual(changes, [{ orderId: quote.orderId, state: 'FundWindowElapsed', sequence: 2 }]);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ORDER_STATES } from '../../src/domain/states.js';
import type { RunningService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, skipReason, type FreshStore } from '../support/stores.js';
import { addProvider, connectClient, eventually, request, startOnStore, type Client } from '../support/ws/harness.js';
import { makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';

const INVOICES = 50;
// Each round races this many invoices at once, so the 50 take ten auctions' time rather than fifty.
const INVOICES_A_ROUND = 5;
const UNLIMITED = { burst: 10_000, perSecond: 10_000 };

describe('two instances, one invoice sent to both at the same instant', { skip: skipReason('postgres') }, () => {
  let fresh: FreshStore;
  let storeB: Store;
  let instanceA: RunningService;
  let instanceB: RunningService;
  const clients: Client[] = [];
  const bots: RunningBot[] = [];

  before(async () => {
    fresh = await openFreshStore('postgres');
    await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
    storeB = await openStore(fresh.url);
    const overrides = {
      // Short auctions keep 50 rounds quick, yet long enough for a maker to answer on a loaded machine; each
      // instance has a maker of its own, so no quote crosses.
      engine: { quoteDeadlineMs: 400, sweepIntervalMs: 60_000 },
      sockets: {
        quoteRequestsPerConnection: UNLIMITED,
        quoteRequestsPerAddress: UNLIMITED,
        eventsPerConnection: UNLIMITED,
        clusterHeartbeatIntervalMs: 100,
        clusterHeartbeatTimeoutMs: 1_000,
      },
    };
    instanceA = await startOnStore(fresh.store, fresh.url, overrides);
    instanceB = await startOnStore(storeB, fresh.url, overrides);
    for (const [name, instance] of [
      ['maker-on-a', instanceA],
      ['maker-on-b', instanceB],
    ] as const) {
      bots.push(await runBot(instance.url, await addProvider(fresh.store, name), makerTerms(name, 300n, 600_000)));
    }
    clients.push(await connectClient(instanceA.url, '/user/v1'), await connectClient(instanceB.url, '/user/v1'));
  });

  after(async () => {
    for (const client of clients) client.close();
    for (const { bot } of bots) bot.close();
    await instanceA?.close();
    await instanceB?.close();
    await storeB?.close();
    await fresh?.dispose();
  });

  test(`for each of ${INVOICES} invoices exactly one order is created; the other user is told SwapAlreadyInProgress`, async () => {
    const [userA, userB] = clients as [Client, Client];
    // Both makers must be known active to both instances before the rounds count.
    await eventually(async () => {
      const { providers } = await fresh.store.getConfiguration();
      return providers.filter((provider) => provider.active).length === 2;
    }, 'both makers to be active');
    const raceOneInvoice = async (label: string): Promise<void> => {
      const { invoice, paymentHash } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 20_000n,
        expirySeconds: 7200,
      });
      const payload = { market: 'ETH_LBTC', invoice };
      const acks = await Promise.all([
        request(userA, 'requestQuote', payload),
        request(userB, 'requestQuote', payload),
      ]);
      const won = acks.filter((ack) => ack.success);
      const refused = acks.filter((ack) => !ack.success);
      assert.equal(won.length, 1, `${label}: ${JSON.stringify(acks)}`);
      assert.deepEqual(refused, [{ success: false, message: 'SwapAlreadyInProgress' }], label);
      const orders = await fresh.store.findOrdersByPaymentHash(paymentHash, ORDER_STATES);
      assert.deepEqual(
        orders.map((order) => order.id),
        [(won[0]!.message as { orderId: string }).orderId],
        `${label}: one order for the payment hash`,
      );
    };
    for (let round = 0; round < INVOICES / INVOICES_A_ROUND; round++) {
      await Promise.all(
        Array.from({ length: INVOICES_A_ROUND }, (_, index) =>
          raceOneInvoice(`invoice ${round * INVOICES_A_ROUND + index + 1}`),
        ),
      );
    }
  });
});

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { followOrder, type StateChanged } from '../../examples/user-client.js';
import type { OrderState } from '../../src/domain/states.js';
import { anvilSkipReason } from '../support/anvil.js';
import { buildOrder, type BuiltOrder } from '../support/fixtures.js';
import { openFreshStore, skipReason, type FreshStore } from '../support/stores.js';
import { connectClient, type Client } from '../support/ws/harness.js';
import { startSwapChain, type SwapChain, swapChainConfiguration } from '../support/chains/ethereum/swap-chain.js';
import { CREATION_CAUSE } from '../support/causes.js';
import { programArgs } from '../support/repository.js';

const MARKET = 'SETH_LSBTC';
const CONFIRMATIONS = 2;
const PROGRAM = programArgs(import.meta.url, '../support/e2e/watching-instance');

interface Instance {
  readonly child: ChildProcess;
  readonly url: string;
  readonly messages: string[];
  watching(): boolean;
}

async function startInstance(databaseUrl: string, rpcUrl: string): Promise<Instance> {
  const child = spawn(process.execPath, [...PROGRAM, databaseUrl, rpcUrl, String(CONFIRMATIONS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: string[] = [];
  let url: string | undefined;
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const entry = JSON.parse(line) as { msg: string; url?: string };
      messages.push(entry.msg);
      if (entry.msg === 'listening') url = entry.url;
    }
  });
  await until(() => url !== undefined || child.exitCode !== null, 30_000, 'the instance to listen');
  if (url === undefined) throw new Error('the instance exited before listening');
  return {
    child,
    url,
    messages,
    // The last word on the watch is the one that counts.
    watching: () => messages.filter((msg) => msg.endsWith('watching the chain')).at(-1) === 'watching the chain',
  };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

describe(
  'two instances on one PostgreSQL database watching Anvil',
  { skip: skipReason('postgres') || anvilSkipReason },
  () => {
    let chain: SwapChain;
    let fresh: FreshStore;
    const instances: Instance[] = [];
    let user: Client | undefined;

    before(async () => {
      chain = await startSwapChain({ refundDelay: 50 });
      fresh = await openFreshStore('postgres');
      await fresh.store.importAtomically(async (session) =>
        session.writeConfiguration(swapChainConfiguration(chain, MARKET)),
      );
    });
    after(async () => {
      user?.close();
      for (const { child } of instances)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(
        instances.map(({ child }) =>
          child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve(),
        ),
      );
      await fresh?.dispose();
      await chain?.close();
    });

    async function newOrder(label: string): Promise<BuiltOrder> {
      const built = buildOrder({ label: `leadership ${label}`, market: MARKET, amount: 7000n, createdAt: Date.now() });
      const record = {
        ...built.record,
        payToAddress: chain.contractAddress,
        expiresAt: Date.now() + 10 * 60_000,
        claimAddress: chain.address('provider'),
      };
      await fresh.store.createOrder(record, CREATION_CAUSE);
      return { ...built, record };
    }

    const stateOf = async (orderId: string) => (await fresh.store.getOrder(orderId))?.state;
    const allIn = (orders: BuiltOrder[], state: OrderState) => async () =>
      (await Promise.all(orders.map(({ record }) => stateOf(record.id)))).every((current) => current === state);

    test('one watches, the other tells its own clients; kill -9 the watcher and the other takes over, nothing lost or doubled', async () => {
      const orders = await Promise.all(['one', 'two', 'three', 'four'].map(newOrder));
      const [first, second, third, fourth] = orders as [BuiltOrder, BuiltOrder, BuiltOrder, BuiltOrder];
      instances.push(await startInstance(fresh.url, chain.rpcUrl));
      await until(() => instances[0]!.watching(), 10_000, 'the first instance to watch');
      instances.push(await startInstance(fresh.url, chain.rpcUrl));
      const [watcher, other] = instances as [Instance, Instance];

      // The other instance's client hears what the watcher moves, through the cluster adapter.
      user = await connectClient(other.url, '/user/v1');
      const events = new Map<string, StateChanged[]>(orders.map(({ record }) => [record.id, []]));
      for (const { record } of orders)
        await followOrder(user, record.id, (change) => events.get(record.id)!.push(change));

      await chain.fund(first.record.id, first.record.paymentHash, 7000n);
      await chain.mine(CONFIRMATIONS);
      await until(allIn([first], 'Funded'), 10_000, 'the first order to be funded');
      await chain.claim(first.record.id, first.preimage);
      await chain.mine(CONFIRMATIONS);
      await until(allIn([first], 'Complete'), 10_000, 'the first order to complete');
      await until(
        () => events.get(first.record.id)!.length === 3,
        10_000,
        "the first order's events on the other instance",
      );
      assert.equal(other.watching(), false, 'only one instance watches');

      // Three fundings in one block; the watcher dies as it sees them.
      await chain.node.testClient.setAutomine(false);
      for (const { record } of [second, third, fourth]) await chain.fund(record.id, record.paymentHash, 7000n);
      await chain.mine(1);
      await until(
        async () => (await stateOf(second.record.id)) !== 'WaitingForFundingTx',
        10_000,
        'the block to be seen',
      ).catch(() => 0);
      watcher.child.kill('SIGKILL');
      await once(watcher.child, 'exit');
      const takeoverMs = await until(() => other.watching(), 10_000, 'the other instance to take over');
      assert.ok(takeoverMs < 10_000);

      await chain.mine(CONFIRMATIONS - 1);
      await until(allIn([second, third, fourth], 'Funded'), 15_000, 'the three orders to be funded');
      await chain.claim(second.record.id, second.preimage);
      await chain.claim(third.record.id, third.preimage);
      await chain.mine(CONFIRMATIONS);
      await until(allIn([second, third], 'Complete'), 15_000, 'two claims to complete their orders');

      // Exactly what one uninterrupted watcher would have written.
      for (const { record } of orders) {
        const history = (await fresh.store.getOrderHistory(record.id)).map((entry) => entry.state);
        const claimed = record.id !== fourth.record.id;
        assert.deepEqual(
          history,
          ['WaitingForFundingTx', 'WaitingForFundingTxConfirmation', 'Funded', ...(claimed ? ['Complete'] : [])],
          `history of ${record.id}`,
        );
        const stored = await fresh.store.getOrder(record.id);
        assert.equal(stored?.transactions.length, 1, `one FUND transaction for ${record.id}`);
        assert.equal(stored?.transactions[0]?.amount, 7000n);
        if (claimed)
          assert.equal(stored?.paymentPreimage, orders.find((order) => order.record.id === record.id)?.preimage);
      }
      // The other instance's client heard each move after the takeover once (events arrive a moment after the commit).
      const statesHeard = (id: string) => events.get(id)!.map((change) => change.state);
      const lastExpected = (id: string): string => (id === fourth.record.id ? 'Funded' : 'Complete');
      await until(
        () => [second, third, fourth].every(({ record }) => statesHeard(record.id).at(-1) === lastExpected(record.id)),
        10_000,
        "the other instance's client to hear the last moves",
      );
      for (const { record } of [second, third, fourth]) {
        const states = statesHeard(record.id);
        assert.equal(states.filter((state) => state === 'Funded').length, 1, `${record.id}: ${states.join(' ')}`);
        assert.equal(
          states.filter((state) => state === 'Complete').length,
          record.id === fourth.record.id ? 0 : 1,
          `${record.id}: ${states.join(' ')}`,
        );
      }
    });
  },
);

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { ChainWatcher } from '../../../src/engine/chain-following/chain-watcher.js';
import type { OrderRecord } from '../../../src/domain/order.js';
import type { Store } from '../../../src/store/store.js';
import { anvilSkipReason } from '../../support/anvil.js';
import { buildOrder, type BuiltOrder } from '../../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../../support/stores.js';
import { silentLogger } from '../../support/ws/harness.js';
import { startSwapChain, type SwapChain, swapChainConfiguration } from '../../support/chains/ethereum/swap-chain.js';
import { programArgs } from '../../support/repository.js';

const PROGRAM = programArgs(import.meta.url, '../../support/chains/ethereum/watching-service');
const CONFIRMATIONS = 2;
/** How long the child holds each step between reading its blocks and writing it: the window the kill lands in. */
const HOLD_MS = 300;
const WAIT_MS = 20_000;

interface LogLine {
  readonly msg?: string;
  readonly orders?: number;
}

/** When to kill: in the middle of a step that moves orders (read, not written), or right after one committed. */
type KillPoint = 'before commit' | 'after commit';
const MARKET = 'SETH_LSBTC';

/** What must come out the same whether or not the watching process was killed on the way. */
async function outcome(store: Store, orders: readonly OrderRecord[]) {
  return Promise.all(
    orders.map(async ({ id }) => {
      const order = await store.getOrder(id);
      const history = await store.getOrderHistory(id);
      return {
        state: order?.state,
        transactions: order?.transactions,
        preimage: order?.paymentPreimage,
        refundableAtBlockHeight: order?.htlc.refundableAtBlockHeight,
        history: history.map((entry) => entry.state),
        observations: await store.listChainObservations('ethereum', [id]),
      };
    }),
  );
}

describe('kill -9 of the watching service and a restart', { skip: anvilSkipReason }, () => {
  let chain: SwapChain;
  let crashing: FreshStore;
  let reference: FreshStore;
  let child: ChildProcess | undefined;

  before(async () => {
    chain = await startSwapChain({ refundDelay: 100 });
    crashing = await openFreshStore('sqlite');
    reference = await openFreshStore('sqlite');
  });
  after(async () => {
    child?.kill('SIGKILL');
    await crashing?.dispose();
    await reference?.dispose();
    await chain?.close();
  });

  let lineListeners: ((line: LogLine) => void)[] = [];

  function startChild(): ChildProcess {
    const args = [...PROGRAM, crashing.url, chain.rpcUrl, String(CONFIRMATIONS), String(HOLD_MS)];
    const started = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: started.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as LogLine;
      for (const listener of lineListeners) listener(line);
    });
    child = started;
    return started;
  }

  function nextLine(accept: (line: LogLine) => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        lineListeners = lineListeners.filter((other) => other !== listener);
        reject(new Error(`the watching service never logged ${what}`));
      }, WAIT_MS);
      const listener = (line: LogLine) => {
        if (!accept(line)) return;
        clearTimeout(timer);
        lineListeners = lineListeners.filter((other) => other !== listener);
        resolve();
      };
      lineListeners.push(listener);
    });
  }

  function killAt(point: KillPoint): Promise<void> {
    return point === 'before commit'
      ? nextLine((line) => line.msg === 'applying step' && (line.orders ?? 0) > 0, 'a step moving orders')
      : nextLine((line) => line.msg === 'chain blocks processed', 'a committed step');
  }

  async function caughtUp(store: Store): Promise<void> {
    const tip = await chain.height();
    const deadline = Date.now() + WAIT_MS;
    while ((await store.getChainWatch('ethereum'))?.cursor.height !== tip) {
      if (Date.now() > deadline) throw new Error('the watching service did not catch up');
      await sleep(20);
    }
  }

  test('states, transactions and history equal those of an uninterrupted run', async () => {
    const setUp = swapChainConfiguration(chain, MARKET);
    const orders: BuiltOrder[] = ['full', 'partial', 'claimed'].map((label) => {
      const built = buildOrder({ label: `crash ${label}`, market: MARKET, amount: 1000n, createdAt: Date.now() });
      const record = {
        ...built.record,
        payToAddress: chain.contractAddress,
        expiresAt: Date.now() + 600_000,
        claimAddress: chain.address('provider'),
      };
      return { ...built, record };
    });
    for (const store of [crashing.store, reference.store]) {
      await store.importAtomically(async (session) => {
        await session.writeConfiguration(setUp);
        await session.writeOrders(orders.map((order) => order.record));
      });
    }
    const referenceWatcher = new ChainWatcher({
      backend: new EthereumBackend({ rpcUrl: chain.rpcUrl, swapContractAddress: chain.contractAddress }),
      store: reference.store,
      tickers: ['SETH'],
      confirmations: CONFIRMATIONS,
      startHeight: 0,
      publish: () => {},
      now: Date.now,
      logger: silentLogger,
    });
    const [full, partial, claimed] = orders as [BuiltOrder, BuiltOrder, BuiltOrder];

    startChild();
    await caughtUp(crashing.store);
    await referenceWatcher.catchUp();
    await chain.node.testClient.setAutomine(false);

    const rounds: { send: () => Promise<unknown>; kill: KillPoint }[] = [
      {
        send: () =>
          Promise.all([
            chain.fund(full.record.id, full.record.paymentHash, 1000n),
            chain.fund(partial.record.id, partial.record.paymentHash, 400n, 'provider'),
            chain.fund(claimed.record.id, claimed.record.paymentHash, 1000n, 'owner'),
          ]),
        kill: 'before commit',
      },
      // This block confirms the first fundings and holds the top-up and the claim.
      {
        send: () =>
          Promise.all([
            chain.fund(partial.record.id, partial.record.paymentHash, 600n, 'provider'),
            chain.claim(claimed.record.id, claimed.preimage, 'owner', 'user'),
          ]),
        kill: 'after commit',
      },
      { send: async () => {}, kill: 'before commit' },
    ];
    for (const round of rounds) {
      await round.send();
      const killPoint = killAt(round.kill);
      await chain.mine(1);
      await killPoint;
      const running = child as ChildProcess;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
      startChild();
      await caughtUp(crashing.store);
      await referenceWatcher.catchUp();
    }
    await chain.node.testClient.setAutomine(true);

    const records = orders.map((order) => order.record);
    const crashed = await outcome(crashing.store, records);
    assert.deepStrictEqual(crashed, await outcome(reference.store, records));
    assert.deepStrictEqual(
      crashed.map((order) => order.state),
      ['Funded', 'Funded', 'Complete'],
    );
    assert.deepStrictEqual(crashed[1]?.history, [
      'WaitingForFundingTx',
      'WaitingForFundingTxConfirmation',
      'PartiallyFunded',
      'WaitingForAdditionalFundingTxConfirmation',
      'Funded',
    ]);
    assert.equal(crashed[2]?.preimage, claimed.preimage);
    assert.deepStrictEqual(
      (await crashing.store.getChainWatch('ethereum'))?.cursor,
      (await reference.store.getChainWatch('ethereum'))?.cursor,
    );
  });
});

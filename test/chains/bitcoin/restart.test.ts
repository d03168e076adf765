/**
 * `kill -9` of a service that watches Bitcoin, again and again while it processes blocks that carry many
 * orders' fundings, top-ups and claims, then a restart: the end state (every order's state, transactions,
 * preimage and history, the stored observations and the cursor) equals that of an uninterrupted run.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { openStore } from '../../../src/store/open.js';
import type { OrderState } from '../../../src/domain/states.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildClaim, buildPayment, p2wpkhAddress, walletKey, type Outpoint } from '../../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, buildOrder, configuration, hex32, seedStore, type BuiltOrder } from '../../support/fixtures.js';
import { programArgs } from '../../support/repository.js';

const PROGRAM = programArgs(import.meta.url, '../../support/chains/bitcoin/watching-service');
/** The coinbase that pays the user is at the chain view's height; the watcher reads from the block after it. */
const FIRST_HEIGHT = BITCOIN_VIEW.blockHeight + 1;
const ORDERS = 12;
/** Milliseconds after the service says it listens at which each run is killed; the last run is left to finish. */
const KILL_AFTER_MS = [10, 50, 100];

const user = walletKey(hex32('restart user'));
let node: TestBitcoinNode;
let directory: string;
const orders: BuiltOrder[] = [];
const children: ChildProcess[] = [];
const expected = new Map<string, OrderState>();

before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'lnswap-bitcoin-restart-'));
  const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
  for (let index = 0; index < ORDERS; index++) {
    orders.push(buildOrder({ label: `restart ${index}`, createdAt: Date.now(), amount: 30_000n + BigInt(index) }));
  }
  // One block funds every order (the first four short by 1,000), the next tops two up and claims four.
  const funding = buildPayment(
    user,
    { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value },
    orders.map(({ record }, index) => ({
      address: record.payToAddress,
      amount: record.amount - (index < 4 ? 1_000n : 0n),
    })),
    'mainnet',
  );
  chain.mine({ txs: [funding] });
  const change: Outpoint = { txId: funding.getId(), index: ORDERS, amount: funding.outs[ORDERS]!.value };
  const topUps = buildPayment(
    user,
    change,
    orders.slice(0, 2).map(({ record }) => ({ address: record.payToAddress, amount: 1_000n })),
    'mainnet',
  );
  const claims = orders.slice(4, 8).map(({ record, preimage }, offset) =>
    buildClaim(
      record.htlc.redeemScript!,
      'p2sh',
      [{ txId: funding.getId(), index: 4 + offset, amount: record.amount }],
      preimage,
      // The fixtures derive an order's claim key from its label.
      walletKey(hex32(`key:claim:restart ${4 + offset}`)),
      'mainnet',
    ),
  );
  chain.mine({ txs: [topUps, ...claims] });
  chain.mine({ txs: [] });
  orders.forEach(({ record }, index) =>
    expected.set(record.id, index < 2 ? 'Funded' : index < 4 ? 'PartiallyFunded' : index < 8 ? 'Complete' : 'Funded'),
  );
  node = await startTestBitcoinNode(chain);
});
after(async () => {
  for (const child of children) await stop(child, 'SIGKILL');
  await node?.close();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

function startWatching(databaseUrl: string): { child: ChildProcess; listening: Promise<void> } {
  const child = spawn(process.execPath, [...PROGRAM, databaseUrl, node.rpcUrl, '1', String(FIRST_HEIGHT)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const listening = new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"listening"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the watching service exited with ${code} before listening`)));
  });
  return { child, listening };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

async function seed(databaseUrl: string): Promise<void> {
  const store = await openStore(databaseUrl);
  await seedStore(store, {
    configuration: configuration({ markets: ['BTC_LBTC'] }),
    orders: orders.map(({ record }) => record),
  });
  await store.close();
}

async function finished(databaseUrl: string): Promise<boolean> {
  const store = await openStore(databaseUrl);
  try {
    const watch = await store.getChainWatch('bitcoin');
    if (watch?.cursor.height !== node.chain.tipHeight) return false;
    for (const [id, state] of expected) if ((await store.getOrder(id))?.state !== state) return false;
    return true;
  } finally {
    await store.close();
  }
}

async function waitFinished(databaseUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await finished(databaseUrl))) {
    if (Date.now() > deadline) throw new Error('the watcher did not finish');
    await sleep(50);
  }
}

/** Everything the watcher wrote, without the wall-clock times of the moves. */
async function endState(databaseUrl: string): Promise<unknown> {
  const store = await openStore(databaseUrl);
  try {
    const ids = orders.map(({ record }) => record.id);
    const watch = await store.getChainWatch('bitcoin');
    return {
      cursor: watch?.cursor,
      observations: await store.listChainObservations('bitcoin', ids),
      orders: await Promise.all(
        ids.map(async (id) => {
          const order = await store.getOrder(id);
          const history = await store.getOrderHistory(id);
          return {
            state: order?.state,
            transactions: order?.transactions,
            preimage: order?.paymentPreimage,
            history: history.map((change) => change.state),
          };
        }),
      ),
    };
  } finally {
    await store.close();
  }
}

test(
  'kill -9 while processing blocks, restart: the same end state as an uninterrupted run',
  { timeout: 180_000 },
  async () => {
    const calm = `sqlite:${join(directory, 'calm.sqlite')}`;
    await seed(calm);
    const uninterrupted = startWatching(calm);
    await uninterrupted.listening;
    await waitFinished(calm);
    await stop(uninterrupted.child, 'SIGTERM');

    const killed = `sqlite:${join(directory, 'killed.sqlite')}`;
    await seed(killed);
    for (const delay of KILL_AFTER_MS) {
      const run = startWatching(killed);
      await run.listening;
      await sleep(delay);
      await stop(run.child, 'SIGKILL');
    }
    const last = startWatching(killed);
    await last.listening;
    await waitFinished(killed);
    await stop(last.child, 'SIGTERM');

    const calmEnd = await endState(calm);
    assert.deepEqual(await endState(killed), calmEnd);
    const states = (calmEnd as { orders: { state: OrderState }[] }).orders.map((order) => order.state);
    assert.deepEqual(states, [...expected.values()]);
  },
);

/**
 * `kill -9` of a watching service between a mempool sighting and the block that confirms it, then a restart:
 * nothing is lost or doubled. Three orders are seen in the mempool; while the service is down two fundings are
 * mined and the third is evicted. Restarted, the service confirms the two (one move each, one FUND each, one
 * stored observation each) and takes the third back, because its history says it was a mempool sighting.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { OrderState } from '../../../src/domain/states.js';
import { openStore } from '../../../src/store/open.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from '../../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, buildOrder, configuration, hex32, seedStore, type BuiltOrder } from '../../support/fixtures.js';
import { programArgs } from '../../support/repository.js';

const PROGRAM = programArgs(import.meta.url, '../../support/chains/bitcoin/watching-service');
const FIRST_HEIGHT = BITCOIN_VIEW.blockHeight + 1;
const CONFIRMATIONS = 2;

const user = walletKey(hex32('mempool restart user'));
let node: TestBitcoinNode;
let directory: string;
let child: ChildProcess | undefined;
const orders: BuiltOrder[] = ['mined', 'mined too', 'evicted'].map((name) =>
  buildOrder({ label: `mempool restart ${name}`, createdAt: Date.now() }),
);
const fundings: string[] = [];

before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'lnswap-mempool-restart-'));
  const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
  // Three coins of the user's, so that each order's funding stands alone in the mempool.
  const own = p2wpkhAddress(user, 'mainnet');
  const split = buildPayment(
    user,
    { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value },
    orders.map(() => ({ address: own, amount: 1_000_000n })),
    'mainnet',
  );
  chain.mine({ txs: [split] });
  orders.forEach(({ record }, index) => {
    const coin = { txId: split.getId(), index, amount: 1_000_000n };
    const funding = buildPayment(user, coin, [{ address: record.payToAddress, amount: record.amount }], 'mainnet');
    chain.submit(funding.toHex());
    fundings.push(funding.getId());
  });
  node = await startTestBitcoinNode(chain);
});
after(async () => {
  if (child !== undefined) await stop(child, 'SIGKILL');
  await node?.close();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

async function startWatching(databaseUrl: string): Promise<ChildProcess> {
  const args = [databaseUrl, node.rpcUrl, String(CONFIRMATIONS), String(FIRST_HEIGHT)];
  const started = spawn(process.execPath, [...PROGRAM, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = started;
  await new Promise<void>((resolve, reject) => {
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"listening"')) resolve();
    });
    started.once('exit', (code) => reject(new Error(`the watching service exited with ${code} before listening`)));
  });
  return started;
}

async function stop(process: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (process.exitCode !== null || process.signalCode !== null) return;
  const exited = once(process, 'exit');
  process.kill(signal);
  await exited;
}

async function statesAre(databaseUrl: string, states: readonly OrderState[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const store = await openStore(databaseUrl);
    try {
      const now = await Promise.all(orders.map(async ({ record }) => (await store.getOrder(record.id))?.state));
      if (now.every((state, index) => state === states[index])) return;
      if (Date.now() > deadline) throw new Error(`orders in ${now.join(', ')}, not ${states.join(', ')}`);
    } finally {
      await store.close();
    }
    await sleep(20);
  }
}

test(
  'kill -9 between mempool sightings and their block: confirmed once, the evicted one back',
  { timeout: 120_000 },
  async () => {
    const databaseUrl = `sqlite:${join(directory, 'watched.sqlite')}`;
    const seeding = await openStore(databaseUrl);
    await seedStore(seeding, {
      configuration: configuration({ markets: ['BTC_LBTC'] }),
      orders: orders.map(({ record }) => record),
    });
    await seeding.close();

    const first = await startWatching(databaseUrl);
    const seen: OrderState = 'WaitingForFundingTxConfirmation';
    await statesAre(databaseUrl, [seen, seen, seen]);
    await stop(first, 'SIGKILL');

    const chain = node.chain;
    const [minedA, minedB, evicted] = fundings as [string, string, string];
    chain.mine({ txs: chain.mempool.filter((tx) => tx.getId() !== evicted) });
    chain.evict(evicted);
    chain.mine({ txs: [] });

    const second = await startWatching(databaseUrl);
    await statesAre(databaseUrl, ['Funded', 'Funded', 'WaitingForFundingTx']);
    await stop(second, 'SIGTERM');

    const store = await openStore(databaseUrl);
    try {
      const fundedHeight = FIRST_HEIGHT + 1;
      for (const [index, txId] of [minedA, minedB].entries()) {
        const { record } = orders[index]!;
        const order = await store.getOrder(record.id);
        assert.deepEqual(order?.transactions, [
          { type: 'FUND', id: txId, amount: record.amount, outputIndex: 0, blockHeight: fundedHeight },
        ]);
        const history = await store.getOrderHistory(record.id);
        assert.deepEqual(
          history.map((change) => [change.state, change.cause?.reason]),
          [
            ['WaitingForFundingTx', undefined],
            [seen, 'fundingSeen'],
            ['Funded', 'fundingConfirmed'],
          ],
        );
      }
      const back = orders[2]!.record.id;
      assert.deepEqual((await store.getOrder(back))?.transactions, []);
      assert.deepEqual(
        (await store.getOrderHistory(back)).map((change) => [change.state, change.cause?.reason]),
        [
          ['WaitingForFundingTx', undefined],
          [seen, 'fundingSeen'],
          ['WaitingForFundingTx', 'fundingLeftMempool'],
        ],
      );
      const observations = await store.listChainObservations(
        'bitcoin',
        orders.map(({ record }) => record.id),
      );
      assert.deepEqual(
        observations.map((observation) => [observation.kind, observation.txId, observation.block.height]),
        [
          ['funding', minedA, fundedHeight],
          ['funding', minedB, fundedHeight],
        ],
        'only what blocks hold is stored, once',
      );
    } finally {
      await store.close();
    }
  },
);

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server.js';
import { buildOrder, configuration, ETHEREUM_VIEW, seedStore, uuidFor } from '../support/fixtures.js';
import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';

let fresh: FreshStore;
let app: FastifyInstance;
const ethereumOrder = buildOrder({ label: 'history-eth', market: 'ETH_LBTC' }).record;
const bitcoinOrder = buildOrder({ label: 'history-btc', funds: [35590n] }).record;
const FUNDING_TX = { type: 'FUND', id: MOVE_CAUSE.txId!, amount: ethereumOrder.amount } as const;

before(async () => {
  fresh = await openFreshStore('sqlite');
  await seedStore(fresh.store, { configuration: configuration(), orders: [bitcoinOrder] });
  await fresh.store.createOrder(ethereumOrder, CREATION_CAUSE);
  await fresh.store.transitionOrder({
    orderId: ethereumOrder.id,
    from: 'WaitingForFundingTx',
    to: 'WaitingForFundingTxConfirmation',
    at: ethereumOrder.createdAt + 5_000,
    cause: MOVE_CAUSE,
    transaction: FUNDING_TX,
  });
  app = await buildApiServer({ store: fresh.store, ethereumChainId: 31337 });
});

after(async () => {
  await app.close();
  await fresh.dispose();
});

test("an order's history: each state with its time, sequence and cause, less the request id", async () => {
  const response = await app.inject({ url: `/tracker/orders/${ethereumOrder.id.toUpperCase()}/history` });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(response.json(), {
    orderId: ethereumOrder.id,
    asset: { ticker: 'ETH', chain: 'ethereum', network: 'mainnet', decimals: 18 },
    chainHeight: ETHEREUM_VIEW.blockHeight,
    ethereumChainId: 31337,
    states: [
      {
        sequence: 1,
        state: 'WaitingForFundingTx',
        at: new Date(ethereumOrder.createdAt).toISOString(),
        cause: { source: 'request', reason: 'requestQuote' },
      },
      {
        sequence: 2,
        state: 'WaitingForFundingTxConfirmation',
        at: new Date(ethereumOrder.createdAt + 5_000).toISOString(),
        cause: {
          source: 'chain',
          reason: 'fundingSeen',
          chain: 'ethereum',
          txId: MOVE_CAUSE.txId,
          blockHeight: MOVE_CAUSE.blockHeight,
          blockHash: MOVE_CAUSE.blockHash,
        },
      },
    ],
    transactions: [{ type: 'FUND', id: FUNDING_TX.id }],
  });
});

test('a Bitcoin order: its chain height, its confirmed transaction, no Ethereum chain id, no cause on imported rows', async () => {
  const response = await app.inject({ url: `/tracker/orders/${bitcoinOrder.id}/history` });
  assert.equal(response.statusCode, 200);
  const body = response.json<{
    states: { cause?: unknown }[];
    chainHeight: number;
    ethereumChainId?: number;
    transactions: unknown[];
  }>();
  assert.equal(body.chainHeight, 612100);
  assert.equal(body.ethereumChainId, undefined);
  assert.equal(body.states.length, 1);
  assert.equal(body.states[0]?.cause, undefined);
  assert.deepEqual(body.transactions, [
    { type: 'FUND', id: bitcoinOrder.transactions[0]?.id, blockHeight: bitcoinOrder.transactions[0]?.blockHeight },
  ]);
});

test('refusals are the read API tokens', async () => {
  const bad = await app.inject({ url: '/tracker/orders/not-an-id/history' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.body, 'InvalidOrderId');
  const missing = await app.inject({ url: `/tracker/orders/${uuidFor('nobody')}/history` });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.body, 'OrderNotFound');
  const post = await app.inject({ method: 'POST', url: `/tracker/orders/${ethereumOrder.id}/history` });
  assert.equal(post.statusCode, 405);
});

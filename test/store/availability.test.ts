import { CREATION_CAUSE, MOVE_CAUSE } from '../support/causes.js';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pino from 'pino';
import { LnswapError } from '../../src/domain/errors.js';
import { isStoreUnavailableError, StoreOutage } from '../../src/store/availability.js';
import type { AsyncMethodName } from '../../src/store/guard.js';
import { guardStore } from '../../src/store/guarded-store.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { CHAINS } from '../support/fixtures.js';
import { openFreshStore, skipReason } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { CONFIGURATION, makeOrder, makeProvider } from '../support/store/fixtures.js';

function recordingLogger(): { logger: pino.Logger; messages: () => string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino(stream), messages: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg) };
}

const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('connection failures of both stores read as unavailable; refusals of a request do not', () => {
  for (const error of [
    unreachable,
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    Object.assign(new Error('connection failure'), { code: '08006' }),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
  ]) {
    assert.equal(isStoreUnavailableError(error), true, error.message);
  }
  for (const error of [
    Object.assign(new Error('duplicate key'), { code: '23505' }),
    Object.assign(new Error('syntax error'), { code: '42601' }),
    Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
    new LnswapError('OrderNotFound'),
    new TypeError('x is undefined'),
    'Connection terminated',
    undefined,
  ]) {
    assert.equal(isStoreUnavailableError(error), false, String(error));
  }
});

test('an outage is logged once when it starts and once when the store answers again', async () => {
  const { logger, messages } = recordingLogger();
  let reachable = false;
  const outage = new StoreOutage(
    async () => {
      if (!reachable) throw unreachable;
    },
    logger,
    20,
  );
  try {
    for (let request = 0; request < 100; request++) {
      const translated = outage.translate(unreachable);
      assert.ok(translated instanceof LnswapError && translated.token === 'ServiceUnavailable');
    }
    const other = new TypeError('a bug');
    assert.equal(outage.translate(other), other);
    await sleep(100);
    assert.deepEqual(messages(), ['store unavailable: answering ServiceUnavailable until it returns']);
    reachable = true;
    await sleep(100);
    assert.equal(outage.isOngoing, false);
    assert.deepEqual(messages(), [
      'store unavailable: answering ServiceUnavailable until it returns',
      'store available again',
    ]);
  } finally {
    outage.stop();
  }
});

test('the guarded store turns a busy SQLite database into ServiceUnavailable and passes refusals through', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lnswap-busy-'));
  const path = join(dir, 'busy.sqlite');
  const inner = await openStore(`sqlite:${path}`);
  const { logger, messages } = recordingLogger();
  const store = guardStore(inner, new StoreOutage(async () => {}, logger, 60_000));
  const other = new Database(path);
  try {
    await store.createOrder(makeOrder(1), CREATION_CAUSE);
    await assert.rejects(
      store.createOrder(makeOrder(2, { paymentHash: makeOrder(1).paymentHash }), CREATION_CAUSE),
      (error) => error instanceof LnswapError && error.token === 'SwapAlreadyInProgress',
    );
    // Another process holds the write lock past the store's busy timeout.
    other.exec('BEGIN EXCLUSIVE');
    await assert.rejects(
      store.createOrder(makeOrder(3), CREATION_CAUSE),
      (error) => error instanceof LnswapError && error.token === 'ServiceUnavailable',
    );
    other.exec('ROLLBACK');
    await store.createOrder(makeOrder(3), CREATION_CAUSE);
    assert.deepEqual(messages(), [
      'store unavailable: answering ServiceUnavailable until it returns',
      'store available again',
    ]);
  } finally {
    other.close();
    await inner.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** One call of each store method that reaches the database; the type makes a method left out fail to compile. */
const CALLS: { readonly [Name in Exclude<AsyncMethodName<Store>, 'close'>]: (store: Store) => Promise<unknown> } = {
  getConfiguration: (store) => store.getConfiguration(),
  getOrder: (store) => store.getOrder(makeOrder(1).id),
  findOrdersByInvoiceHash: (store) => store.findOrdersByInvoiceHash(makeOrder(1).invoiceHash),
  getOrderHistory: (store) => store.getOrderHistory(makeOrder(1).id),
  getOrderHistorySince: (store) => store.getOrderHistorySince(makeOrder(1).id, 0),
  createOrder: (store) => store.createOrder(makeOrder(2), CREATION_CAUSE),
  transitionOrder: (store) =>
    store.transitionOrder({
      orderId: makeOrder(1).id,
      from: 'WaitingForFundingTx',
      to: 'WaitingForFundingTxConfirmation',
      at: 1,
      cause: MOVE_CAUSE,
    }),
  listOrdersExpiredIn: (store) => store.listOrdersExpiredIn('WaitingForFundingTx', Date.now()),
  findOrdersByPaymentHash: (store) => store.findOrdersByPaymentHash(makeOrder(1).paymentHash, ['WaitingForFundingTx']),
  countOrdersInStates: (store) => store.countOrdersInStates(['WaitingForFundingTx']),
  recordCooperativeRefunds: (store) =>
    store.recordCooperativeRefunds(makeOrder(1).id, [
      { funder: `0x${'22'.repeat(20)}`, signature: `0x${'33'.repeat(65)}` },
    ]),
  listCooperativeRefunds: (store) => store.listCooperativeRefunds(makeOrder(1).id),
  getChainWatch: (store) => store.getChainWatch('ethereum'),
  listChainObservations: (store) => store.listChainObservations('ethereum', [makeOrder(1).id]),
  listOrdersOfTickersInStates: (store) => store.listOrdersOfTickersInStates(['ETH'], ['WaitingForFundingTx']),
  applyChainStep: (store) =>
    store.applyChainStep({
      chain: 'ethereum',
      startHeight: 1,
      observations: [],
      cursor: { height: 1, hash: `0x${'11'.repeat(32)}` },
      orders: [],
    }),
  setChainViews: (store) => store.setChainViews(CHAINS),
  upsertProvider: (store) => store.upsertProvider(makeProvider('maker-z', {})),
  setProviderActive: (store) => store.setProviderActive('maker-a', false),
  addProviderCredential: (store) =>
    store.addProviderCredential({ name: 'maker-z', apiKey: 'key-z', secretHash: 'hash-z', createdAt: 1 }),
  findProviderCredentialByApiKey: (store) => store.findProviderCredentialByApiKey('key-z'),
  listProviderCredentials: (store) => store.listProviderCredentials(),
  revokeProviderCredential: (store) => store.revokeProviderCredential('maker-z', 2),
  setProviderPayoutAddress: (store) => store.setProviderPayoutAddress('maker-z', `0x${'fa'.repeat(20)}`),
  addToken: (store) =>
    store.addToken({ ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 }, 'USDC_LBTC'),
  takeRateLimitToken: (store) => store.takeRateLimitToken('client-z', { burst: 1, perSecond: 1 }),
  importAtomically: (store) => store.importAtomically((session) => session.writeConfiguration(CONFIGURATION)),
};

test(
  'every call of the guarded store that reaches PostgreSQL answers ServiceUnavailable while it is unreachable',
  { skip: skipReason('postgres') },
  async () => {
    const fresh = await openFreshStore('postgres');
    const target = new URL(fresh.url);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const proxied = new URL(fresh.url);
    proxied.host = `127.0.0.1:${proxy.listeningPort}`;
    const inner = await openStore(proxied.toString());
    const outage = new StoreOutage(async () => {}, pino({ enabled: false }), 60_000);
    const store = guardStore(inner, outage);
    try {
      assert.equal(store.dialect, 'postgres');
      assert.equal(store.changes, inner.changes);
      await proxy.cut();
      for (const [name, call] of Object.entries(CALLS)) {
        await assert.rejects(
          call(store),
          (error) => error instanceof LnswapError && error.token === 'ServiceUnavailable',
          name,
        );
      }
    } finally {
      outage.stop();
      await inner.close().catch(() => undefined);
      await proxy.stop();
      await fresh.dispose();
    }
  },
);

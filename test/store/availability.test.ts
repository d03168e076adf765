import { CREATION_CAUSE } from '../support/causes.js';
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
import { guardStore } from '../../src/store/guarded-store.js';
import { openStore } from '../../src/store/open.js';
import { makeOrder } from './fixtures.js';

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
  const outage = new StoreOutage(async () => {
    if (!reachable) throw unreachable;
  }, logger, 20);
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
    assert.deepEqual(messages(), ['store unavailable: answering ServiceUnavailable until it returns', 'store available again']);
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
    await assert.rejects(store.createOrder(makeOrder(3), CREATION_CAUSE), (error) => error instanceof LnswapError && error.token === 'ServiceUnavailable');
    other.exec('ROLLBACK');
    await store.createOrder(makeOrder(3), CREATION_CAUSE);
    assert.deepEqual(messages(), ['store unavailable: answering ServiceUnavailable until it returns', 'store available again']);
  } finally {
    other.close();
    await inner.close();
    await rm(dir, { recursive: true, force: true });
  }
});

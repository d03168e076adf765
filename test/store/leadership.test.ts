import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { Leadership } from '../../src/store/leadership.js';
import { openLeadership } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { openFreshStore, POSTGRES_URL, skipReason } from '../support/stores.js';

const FAST = { retryIntervalMs: 200, keepAliveIntervalMs: 200 };

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

function leaders(all: readonly Leadership[]): Leadership[] {
  return all.filter((leadership) => leadership.leading);
}

/** The backend holding the advisory lock named `name` in `schema`, as the leadership takes it. */
async function lockHolder(admin: pg.Client, schema: string, name: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND classid = (hashtext($1)::bigint & 4294967295)::oid AND objid = (hashtext($2)::bigint & 4294967295)::oid`,
    [schema, name],
  );
  return rows.map((row) => row.pid);
}

describe('PostgreSQL leadership', { skip: skipReason('postgres') }, () => {
  test('exactly one of two instances leads; another takes over when its session is killed or it closes', async () => {
    const fresh = await openFreshStore('postgres');
    const schema = parsePostgresUrl(fresh.url).schema ?? '';
    const admin = new pg.Client({ connectionString: parsePostgresUrl(POSTGRES_URL).connectionString });
    await admin.connect();
    const all = [openLeadership(fresh.url, 'ethereum', FAST), openLeadership(fresh.url, 'ethereum', FAST)];
    const changes: string[] = [];
    all.forEach((leadership, index) => leadership.onChange((leading) => changes.push(`${index}:${leading}`)));
    try {
      await until(() => leaders(all).length === 1, 5_000, 'a leader');
      // Several retry rounds later, still exactly one.
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(leaders(all).length, 1);
      const first = all.indexOf(leaders(all)[0] as Leadership);
      const holders = await lockHolder(admin, schema, 'ethereum');
      assert.equal(holders.length, 1);

      // Another job of the same schema leads independently of the first.
      const bitcoin = openLeadership(fresh.url, 'bitcoin', FAST);
      await until(() => bitcoin.leading, 5_000, 'the bitcoin lead');
      await bitcoin.close();

      await admin.query('SELECT pg_terminate_backend($1)', [holders[0]]);
      // The killed session's instance hears of its loss; the lock is free, and whichever instance retries first
      // (the other, or the first once reconnected: both are alive) holds it, alone, within seconds.
      const tookMs = await until(
        () => changes.includes(`${first}:false`) && leaders(all).length === 1,
        10_000,
        'a leader again after the session was killed',
      );
      assert.ok(tookMs < 10_000);
      const leader = all.indexOf(leaders(all)[0] as Leadership);

      // The lead stays where it is while it is held.
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.deepEqual(leaders(all), [all[leader]]);

      // A leader that closes hands over: the other instance takes the lead.
      await (all[leader] as Leadership).close();
      assert.equal((all[leader] as Leadership).leading, false);
      await until(() => (all[1 - leader] as Leadership).leading, 10_000, 'the other instance to lead after a close');
    } finally {
      await Promise.all(all.map((leadership) => leadership.close()));
      await admin.end();
      await fresh.dispose();
    }
  });

  test('instances on different schemas of one database each lead their own', async () => {
    const [a, b] = await Promise.all([openFreshStore('postgres'), openFreshStore('postgres')]);
    const all = [openLeadership(a.url, 'ethereum', FAST), openLeadership(b.url, 'ethereum', FAST)];
    try {
      await until(() => leaders(all).length === 2, 5_000, 'both schemas to have a leader');
    } finally {
      await Promise.all(all.map((leadership) => leadership.close()));
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });
});

test('on SQLite the one process leads until it closes', async () => {
  const leadership = openLeadership('sqlite::memory:', 'ethereum');
  const changes: boolean[] = [];
  leadership.onChange((leading) => changes.push(leading));
  assert.equal(leadership.leading, true);
  await leadership.close();
  assert.equal(leadership.leading, false);
  assert.deepEqual(changes, [false]);
});

/**
 * What a per-address budget shared through the store would cost per packet, against the in-memory byte budget
 * the packet gate charges: the instance's own CPU and the wall time per `takeRateLimitToken` on PostgreSQL (one
 * at a time, and 64 at once), and per in-memory charge. Works in the schema `lnswap_rate_limit_cost`, dropped
 * afterwards.
 *
 *   node --import tsx bench/socket-load/rate-limit-cost.ts
 */
import pg from 'pg';
import { KeyedRateLimiter } from '../../src/domain/token-bucket.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection-url.js';
import { openStore } from '../../src/store/open.js';

const SCHEMA = 'lnswap_rate_limit_cost';
const TAKES = 5_000;
const CONCURRENCY = 64;
const LIMIT = { burst: 1e12, perSecond: 1e12 };

async function dropSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
}

async function measure(work: () => Promise<void>, count: number): Promise<{ wallUs: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - started) * 1000) / count, cpuUs: (used.user + used.system) / count };
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';
  await dropSchema(base);
  const store = await openStore(`${base}?schema=${SCHEMA}`);
  try {
    for (let n = 0; n < 500; n++) await store.takeRateLimitToken(`warm:${n % 200}`, LIMIT);
    const sequential = await measure(async () => {
      for (let n = 0; n < TAKES; n++) await store.takeRateLimitToken(`bytes:127.0.0.${n % 200}`, LIMIT);
    }, TAKES);
    const concurrent = await measure(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < TAKES) await store.takeRateLimitToken(`bytes:127.0.0.${next++ % 200}`, LIMIT);
        }),
      );
    }, TAKES);
    const local = new KeyedRateLimiter(LIMIT);
    const inMemory = await measure(async () => {
      for (let n = 0; n < TAKES * 100; n++) local.charge(`127.0.0.${n % 200}`, n, 65_536);
    }, TAKES * 100);
    const round = (value: number) => Math.round(value * 100) / 100;
    process.stdout.write(
      `${JSON.stringify({
        storeOneAtATime: { wallUs: round(sequential.wallUs), cpuUs: round(sequential.cpuUs) },
        storeConcurrent: { wallUs: round(concurrent.wallUs), cpuUs: round(concurrent.cpuUs), concurrency: CONCURRENCY },
        inMemory: { wallUs: round(inMemory.wallUs), cpuUs: round(inMemory.cpuUs) },
      })}\n`,
    );
  } finally {
    await store.close();
    await dropSchema(base);
  }
}

void main();

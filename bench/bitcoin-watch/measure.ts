import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OrderRecord } from '../../src/domain/order.js';
import { openStore } from '../../src/store/open.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../test/support/bitcoin-node/server.js';
import { SeededRandom } from '../dataset/seeded-random.js';
import { lnswapCommand } from '../launcher.js';
import { freePort, startServer, type RunningServer } from '../processes.js';
import { CACHE_DIR } from '../settings.js';
import { FundingWatchers } from './funding-watchers.js';
import type { IndexedTestChain } from './indexed-chain.js';
import { liveBitcoinOrders } from './live-orders.js';
import { processedHeight } from './processed-height.js';
import { RequestClock, type Pass } from './request-clock.js';
import { BLOCK_SECONDS, FUNDING_EVERY, TRANSACTIONS_PER_SECOND, type BitcoinWatchSettings } from './settings.js';
import { chainWithCoins, funding, paymentElsewhere, type PlannedPayment } from './wallet.js';

const DIRECTORY = join(CACHE_DIR, 'bitcoin-watch');
/**
 * No request for this long ends a pass of the watcher, which then waits its mempool interval (2 s by default, a
 * poll every 10 s): longer than the store read inside a poll (0.2 to 1.1 s at 10,000 orders), so a poll is
 * rarely cut in two, and short enough to mine before the next pass.
 */
const QUIET_MS = 1_200;
/** A block is mined at most this long after the watcher's last request: before its next pass, 2 s after. */
const MINE_WITHIN_MS = 1_900;
/** Longest wait for a pass: a watcher reading 10,000 address histories per block takes a while. */
const PASS_TIMEOUT_MS = 180_000;

/** What one service made its node do, and what its wallets heard. */
export interface WatchResult {
  readonly orders: number;
  /** Requests of the pass that read the block, less those of a pass with nothing new. */
  readonly requestsPerBlock: number;
  readonly blockPassRequests: number;
  readonly quietPassRequests: number;
  /** Requests while the traffic ran, scaled to a minute. */
  readonly requestsPerMinute: number;
  /** A block every ten minutes with the traffic between: (per block + 10 x per minute) / 600 s. */
  readonly averagePerSecond: number;
  /** The most requests in any one second from the traffic's start to the end of the block's pass. */
  readonly busiestSecond: number;
  /** From each funding entering the mempool to its order's first `stateChanged`, for those heard before the block. */
  readonly latenciesMs: readonly number[];
  /** First events naming another state than WaitingForFundingTxConfirmation. */
  readonly otherStates: readonly string[];
}

export interface BitcoinWatchMeasurement {
  readonly blockTransactions: number;
  readonly fundings: number;
  readonly results: readonly WatchResult[];
}

/** One service following the chain through its own endpoint of the test node, with its own store. */
interface Follower {
  readonly orders: number;
  /** Its own copy of the chain, so that its block is mined between two of its passes, never during one. */
  readonly chain: IndexedTestChain;
  readonly node: TestBitcoinNode;
  readonly clock: RequestClock;
  readonly server: RunningServer;
  watchers?: FundingWatchers;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + PASS_TIMEOUT_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

/** A fresh SQLite store holding the Bitcoin market, the chain view at `tipHeight` and the orders, written at once. */
async function storeWith(orders: readonly OrderRecord[], tipHeight: number): Promise<string> {
  const directory = join(DIRECTORY, String(orders.length));
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'lnswap.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const url = `sqlite:${file}`;
  const store = await openStore(url);
  try {
    await store.importAtomically(async (session) => {
      await session.writeConfiguration({
        markets: ['BTC_LBTC'],
        tokens: [],
        providers: [],
        chains: { bitcoin: { blockHeight: tipHeight, feeTokensPerVirtualByte: 12 } },
      });
      await session.writeOrders(orders);
    });
  } finally {
    await store.close();
  }
  return url;
}

async function startFollower(
  orders: readonly OrderRecord[],
  chain: IndexedTestChain,
  settings: BitcoinWatchSettings,
): Promise<Follower> {
  const url = await storeWith(orders, chain.tipHeight);
  const node = await startTestBitcoinNode(chain);
  const port = await freePort();
  const nodeArgs =
    settings.backend === 'esplora' ? ['--bitcoin-esplora', node.esploraUrl] : ['--bitcoin-rpc', node.rpcUrl];
  const clock = new RequestClock(node.requests);
  try {
    const server = await startServer({
      name: `lnswap ${orders.length} orders`,
      // The default poll interval and confirmations: what an operator runs.
      args: lnswapCommand('serve', '--db', url, '--host', '127.0.0.1', '--port', String(port), ...nodeArgs),
      port,
      logFile: join(DIRECTORY, `lnswap-${orders.length}.log`),
      readyPath: '/api/markets',
    });
    return { orders: orders.length, chain, node, clock, server };
  } catch (error) {
    clock.stop();
    await node.close();
    throw error;
  }
}

/** The passes of `follower` that began after `time` and are over. */
function passesAfter(follower: Follower, time: number): Pass[] {
  return follower.clock.finishedPasses(QUIET_MS).filter((pass) => pass.start > time);
}

/**
 * The pass before which a block can be mined without a pass reading half of it: the second whole pass after
 * `time`, when nothing has been asked since and the next pass is still seconds away.
 */
function idleAfter(follower: Follower, time: number): Pass | undefined {
  const passes = passesAfter(follower, time);
  const last = passes.at(-1);
  if (passes.length < 2 || last === undefined) return undefined;
  const sinceLastRequest = performance.now() - (follower.clock.samples.at(-1)?.at ?? 0);
  return sinceLastRequest < MINE_WITHIN_MS && last.end === follower.clock.samples.at(-1)?.at ? last : undefined;
}

/**
 * Waits until the service has stored block `height` as processed and then asked nothing for QUIET_MS: the pass
 * that read it is over. Answers when its last request was made.
 */
async function passOverAt(follower: Follower, height: number, what: string): Promise<number> {
  await until(what, async () => ((await processedHeight(follower.server.baseUrl)) ?? -1) >= height || undefined);
  return until(what, () => {
    const last = follower.clock.lastRequestAt();
    return performance.now() - last > QUIET_MS ? last : undefined;
  });
}

/** Payments of `count` seconds of traffic from `coins`, one in FUNDING_EVERY funding the next of `funded`. */
function plannedTraffic(
  coins: readonly Parameters<typeof funding>[0][],
  funded: readonly OrderRecord[],
  random: SeededRandom,
): PlannedPayment[] {
  let nextFunded = 0;
  return coins.map((coin, index) =>
    index % FUNDING_EVERY === FUNDING_EVERY / 2 && nextFunded < funded.length
      ? funding(coin, funded[nextFunded++]!)
      : paymentElsewhere(coin, random),
  );
}

/** Sends the payments into every chain's mempool at TRANSACTIONS_PER_SECOND; answers when each funding entered. */
async function runTraffic(
  chains: readonly IndexedTestChain[],
  payments: readonly PlannedPayment[],
): Promise<Map<string, number>> {
  const entered = new Map<string, number>();
  const start = performance.now();
  for (const [index, payment] of payments.entries()) {
    const due = start + (index * 1000) / TRANSACTIONS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const hex = payment.tx.toHex();
    for (const chain of chains) chain.submit(hex);
    if (payment.fundsOrderId !== undefined) entered.set(payment.fundsOrderId, performance.now());
  }
  const end = start + (payments.length * 1000) / TRANSACTIONS_PER_SECOND;
  if (end > performance.now()) await sleep(end - performance.now());
  return entered;
}

/**
 * The scenario: one `lnswap serve` per order count (the default poll interval and confirmations, SQLite), each
 * following its twin of one chain through its own endpoint of the test node, so each one's requests are counted
 * apart; a wallet per funded order subscribed over `/user/v1`; `trafficSeconds` of payments, some funding orders
 * every store holds; then a block of ten minutes of such traffic.
 */
export async function measureBitcoinWatch(
  settings: BitcoinWatchSettings,
  log: (message: string) => void,
): Promise<BitcoinWatchMeasurement> {
  const trafficCount = TRANSACTIONS_PER_SECOND * settings.trafficSeconds;
  // The rest of the block's ten minutes of traffic, mined straight into it: a service running through those minutes
  // would have read them in its mempool passes, which the per-minute figure counts.
  const fillerCount = Math.max(0, TRANSACTIONS_PER_SECOND * BLOCK_SECONDS - trafficCount);
  const fundingCount = Math.floor(trafficCount / FUNDING_EVERY);
  const largest = Math.max(...settings.orderCounts);
  if (Math.min(...settings.orderCounts) < fundingCount) {
    throw new Error(`each store needs at least the ${fundingCount} orders the traffic funds`);
  }

  log(`building the chain, ${largest.toLocaleString('en')} live orders and ${fillerCount + trafficCount} payments`);
  const built = chainWithCoins(fillerCount + trafficCount);
  const orders = liveBitcoinOrders(largest, Date.now(), built.chain.tipHeight);
  const random = new SeededRandom('lnswap-bench-bitcoin-watch-traffic');
  const filler = built.coins.slice(0, fillerCount).map((coin) => paymentElsewhere(coin, random).tx);
  const traffic = plannedTraffic(built.coins.slice(fillerCount), orders.slice(0, fundingCount), random);
  const fundedIds = orders.slice(0, fundingCount).map((order) => order.id);

  const followers: Follower[] = [];
  try {
    for (const [index, count] of settings.orderCounts.entries()) {
      // The same seeds build the same blocks: every follower's chain is the first one's twin.
      const chain = index === 0 ? built.chain : chainWithCoins(fillerCount + trafficCount).chain;
      followers.push(await startFollower(orders.slice(0, count), chain, settings));
    }
    log(`${followers.length} services started; waiting for each one's first pass`);
    await Promise.all(followers.map((follower) => passOverAt(follower, follower.chain.tipHeight, 'a first pass')));
    for (const follower of followers)
      follower.watchers = await FundingWatchers.connect(follower.server.baseUrl, fundedIds);

    log(`${settings.trafficSeconds} s of mempool traffic: ${trafficCount} payments, ${fundingCount} of them fundings`);
    const trafficStart = performance.now();
    const entered = await runTraffic(
      followers.map((follower) => follower.chain),
      traffic,
    );
    const trafficEnd = performance.now();
    log(
      'each service: two passes after the traffic (the second has nothing new to read), a block, the pass reading it',
    );
    const results = await Promise.all(
      followers.map(async (follower): Promise<WatchResult> => {
        const quietPass = await until('two passes after the traffic', () => idleAfter(follower, trafficEnd));
        const { height } = follower.chain.mine({ txs: [...follower.chain.mempool, ...filler] });
        const mined = performance.now();
        const blockPassEnd = await passOverAt(follower, height, 'the pass reading the block');
        const blockPassRequests = follower.clock.between(mined, blockPassEnd);
        const requestsPerBlock = Math.max(0, blockPassRequests - quietPass.requests);
        const requestsPerMinute =
          (follower.clock.between(trafficStart, trafficEnd) * 60_000) / (trafficEnd - trafficStart);
        const heard = [...entered].flatMap(([orderId, at]) => {
          const event = follower.watchers?.firstEvents.get(orderId);
          return event !== undefined && event.at < mined ? [{ latency: event.at - at, state: event.state }] : [];
        });
        return {
          orders: follower.orders,
          requestsPerBlock,
          blockPassRequests,
          quietPassRequests: quietPass.requests,
          requestsPerMinute,
          averagePerSecond: (requestsPerBlock + (requestsPerMinute * BLOCK_SECONDS) / 60) / BLOCK_SECONDS,
          busiestSecond: follower.clock.busiestSecondSince(trafficStart),
          latenciesMs: heard.map((event) => event.latency),
          otherStates: heard.map((event) => event.state).filter((state) => state !== 'WaitingForFundingTxConfirmation'),
        };
      }),
    );
    return { blockTransactions: built.chain.tip!.txs.length - 1, fundings: entered.size, results };
  } finally {
    for (const follower of followers) {
      follower.watchers?.close();
      follower.clock.stop();
      await follower.server.stop();
      await follower.node.close();
    }
  }
}

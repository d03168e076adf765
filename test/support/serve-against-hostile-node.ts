/**
 * `lnswap serve` against a node that answers `null`, `"0x"`, a number or a 10 MB string to one of the calls it
 * makes, for each call it makes at start and while following (test/cli/serve-hostile-*.test.ts, one per API):
 * - at start it refuses with exit code 1 and one bounded line naming the call and the fault, and writes nothing
 *   to the store (run in the test's process with `runCommandLine`);
 * - while following (its own process) it keeps serving, asks again (the node answers wrongly more than once),
 *   says so on `/readyz` (or, for the mempool, on `/metrics`), and once the node is honest again it reads the
 *   blocks it could not read meanwhile;
 * - it never prints a stack trace, `Cannot read properties`, or a line carrying the node's megabytes.
 * The calls are listed here; the honest run checks that the service makes each of them and no other.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { Transaction } from 'bitcoinjs-lib';
import { openStore } from '../../src/store/open.js';
import { BitcoinTestChain } from './bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from './bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from './bitcoin-wallet.js';
import { startAnvil, type AnvilNode } from './anvil.js';
import { readAll, runCli, runInProcess, startCli, waitForLine } from './cli/cli-process.js';
import { eventually } from './eventually.js';
import { configuration, hex32, seedStore } from './fixtures.js';
import { startHostileNode, type HostileNode } from './hostile-node.js';
import { openFreshStore, type FreshStore } from './stores.js';

/** `0x` and 10 MiB of hex digits: a string that passes for data until its length is looked at. */
const TEN_MB = `0x${'ab'.repeat(5 * 2 ** 20 - 1)}`;

const WRONG_ANSWERS: readonly { readonly label: string; readonly answer: unknown }[] = [
  { label: 'null', answer: null },
  { label: '"0x"', answer: '0x' },
  { label: 'a number', answer: 12_345 },
  { label: 'a 10 MB string', answer: TEN_MB },
];

/** How a call answered wrongly while following shows: the node misbehaving, or its mempool not read. */
type FollowingEffect = 'misbehaving' | 'mempoolUnread';

/** A start that has not failed within this is serving: the test stops it and fails. */
const START_BOUND_MS = 8_000;

export interface ChainUnderTest {
  readonly label: string;
  readonly chain: 'ethereum' | 'bitcoin';
  readonly markets: string[];
  readonly node: HostileNode;
  /** `lnswap serve`'s flags for the node, through the hostile one, and its environment. */
  readonly nodeArgs: readonly string[];
  readonly env: Record<string, string>;
  /** Flags for fast polls, while following. */
  readonly pollArgs: readonly string[];
  readonly startCalls: readonly string[];
  /** The start call a refused start is also shown for as its own process (exit status, stdout). */
  readonly processStartCall: string;
  readonly followingCalls: Readonly<Record<string, FollowingEffect>>;
  /** The node's calls since `mark()`, by their names here. */
  callsSince(mark: number): string[];
  mark(): number;
  /** How the hostile node recognises the call named `name`. */
  wrongCall(name: string): string | RegExp;
  /** A new block (and, on Bitcoin, a new mempool transaction): a poll makes every one of its calls again. */
  advance(): Promise<void>;
  tipHeight(): Promise<number>;
  close(): Promise<void>;
}

function jsonRpcCalls(node: HostileNode): Pick<ChainUnderTest, 'callsSince' | 'mark' | 'wrongCall'> {
  return {
    callsSince: (mark) => node.rpcMethods.slice(mark),
    mark: () => node.rpcMethods.length,
    wrongCall: (name) => name,
  };
}

/** Esplora paths by name: `:hash` and `:height` stand for any. */
function esploraCalls(node: HostileNode): Pick<ChainUnderTest, 'callsSince' | 'mark' | 'wrongCall'> {
  return {
    callsSince: (mark) =>
      node.requests.slice(mark).map((request) =>
        (request.split(' ')[1] ?? '')
          .replace(/^\/api/, '')
          .replace(/[0-9a-f]{64}/g, ':hash')
          .replace(/\/\d+(?=\/|$)/g, '/:height'),
      ),
    mark: () => node.requests.length,
    wrongCall: (name) => new RegExp(`^/api${name.replace(':hash', '[0-9a-f]{64}').replace(':height', '\\d+')}$`),
  };
}

export async function ethereumUnderTest(): Promise<ChainUnderTest> {
  const anvil: AnvilNode = await startAnvil();
  const contract = await anvil.deploySwapContract(20n);
  const node = await startHostileNode(new URL(anvil.rpcUrl).origin);
  return {
    label: 'Ethereum',
    chain: 'ethereum',
    markets: ['SETH_LSBTC'],
    node,
    nodeArgs: ['--ethereum-rpc', node.origin, '--swap-contract', contract, '--ethereum-confirmations', '1'],
    env: {},
    pollArgs: ['--ethereum-poll-interval-ms', '20'],
    startCalls: ['eth_chainId', 'eth_getCode', 'eth_call', 'eth_getBlockByNumber'],
    processStartCall: 'eth_getCode',
    followingCalls: { eth_getBlockByNumber: 'misbehaving', eth_getLogs: 'misbehaving' },
    ...jsonRpcCalls(node),
    advance: () => anvil.mine(1),
    tipHeight: async () => Number(await anvil.blockNumber()),
    close: async () => {
      await node.close();
      await anvil.stop();
    },
  };
}

/** The test Bitcoin node behind a hostile one; each advance mines a block and leaves a payment in the mempool. */
export async function bitcoinUnderTest(
  api: 'Esplora' | 'Bitcoin Core',
): Promise<ChainUnderTest & { readonly honest: TestBitcoinNode }> {
  const chain = new BitcoinTestChain('mainnet', 700_000);
  chain.mine({ txs: [] });
  chain.mine({ txs: [] });
  const honest = await startTestBitcoinNode(chain);
  const node = await startHostileNode(new URL(honest.esploraUrl).origin);
  const key = walletKey(hex32(`${api} wallet`));
  const address = p2wpkhAddress(key, 'mainnet');
  let unspent: Transaction | undefined;
  const advance = async () => {
    const coinbase = chain.mine({ coinbaseTo: address }).txs[0]!;
    if (unspent !== undefined) {
      const coin = { txId: unspent.getId(), index: 0, amount: unspent.outs[0]!.value };
      chain.submit(buildPayment(key, coin, [{ address, amount: 10_000n }], 'mainnet').toHex());
    }
    unspent = coinbase;
  };
  const common = {
    chain: 'bitcoin' as const,
    markets: ['BTC_LBTC'],
    node,
    honest,
    pollArgs: ['--bitcoin-poll-interval-ms', '20', '--bitcoin-mempool-interval-ms', '20'],
    advance,
    tipHeight: async () => chain.tipHeight,
    close: async () => {
      await node.close();
      await honest.close();
    },
  };
  if (api === 'Esplora') {
    return {
      ...common,
      label: 'Esplora',
      nodeArgs: ['--bitcoin-esplora', `${node.origin}/api`, '--bitcoin-confirmations', '1'],
      env: {},
      startCalls: ['/block-height/:height', '/blocks/tip/hash', '/block/:hash', '/fee-estimates'],
      processStartCall: '/blocks/tip/hash',
      followingCalls: {
        '/blocks/tip/hash': 'misbehaving',
        '/block/:hash': 'misbehaving',
        '/block-height/:height': 'misbehaving',
        '/block/:hash/raw': 'misbehaving',
        '/fee-estimates': 'misbehaving',
        '/mempool/txids': 'mempoolUnread',
        '/tx/:hash/hex': 'mempoolUnread',
      },
      ...esploraCalls(node),
    };
  }
  return {
    ...common,
    label: 'Bitcoin Core',
    nodeArgs: ['--bitcoin-rpc', `${node.origin}/`, '--bitcoin-confirmations', '1'],
    env: { BITCOIN_RPC_USER: honest.rpcUser, BITCOIN_RPC_PASSWORD: honest.rpcPassword },
    startCalls: ['getblockchaininfo', 'getblockhash', 'estimatesmartfee'],
    processStartCall: 'getblockchaininfo',
    followingCalls: {
      getblockchaininfo: 'misbehaving',
      getblockhash: 'misbehaving',
      getblock: 'misbehaving',
      estimatesmartfee: 'misbehaving',
      getrawmempool: 'mempoolUnread',
      getrawtransaction: 'mempoolUnread',
    },
    ...jsonRpcCalls(node),
  };
}

/** A store offering `markets` and no chain views, so that start-up reads the tip and the fee rate too. */
export async function storeOffering(markets: string[]): Promise<FreshStore> {
  const fresh = await openFreshStore('sqlite');
  await seedStore(fresh.store, { configuration: configuration({ markets, providers: [], chains: {} }) });
  await fresh.store.close();
  return fresh;
}

async function chainViewsIn(url: string) {
  const store = await openStore(url);
  try {
    return (await store.getConfiguration()).chains;
  } finally {
    await store.close();
  }
}

/** The one line a refused start prints: bounded, without a stack, naming the call and the fault. */
export function assertNamedRefusal(stderr: string, chain: ChainUnderTest, call: string): void {
  assert.equal(stderr.split('\n').length, 2, `one line: ${stderr.slice(0, 500)}`);
  assert.ok(stderr.length < 400, `a bounded line: ${stderr.slice(0, 500)}`);
  assert.doesNotMatch(stderr, /Cannot read properties/);
  const shown = call.startsWith('/') ? `Esplora GET ${call.replace(/:\w+/g, '\\w+')}` : `(ethereum|bitcoind) ${call}`;
  const named = new RegExp(
    `^lnswap serve: the ${chain.chain} node is misbehaving \\(badAnswer\\): ${shown} at http://127\\.0\\.0\\.1:\\d+: \\S`,
  );
  // An address without code (`"0x"`), or code that is not lnswap's contract, is refused for what it is.
  const contractRefusal = call === 'eth_getCode' && /^lnswap serve: [^\n]*contract/.test(stderr);
  assert.ok(named.test(stderr) || contractRefusal, `a named refusal: ${stderr}`);
}

/** What a service printed: no stack trace, nothing the node sent at length. */
export function assertNoStackTrace(output: string): void {
  assert.doesNotMatch(output, /"stack"|\n\s+at |Cannot read properties/);
  for (const line of output.split('\n')) assert.ok(line.length < 4_000, `a line of ${line.length} characters`);
}

/** `lnswap serve` in the test's process, stopped (and failed) should it start serving after all. */
async function startInProcess(args: readonly string[], env: Record<string, string>) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = runInProcess(args, { env: { ...env, LOG_LEVEL: 'silent' } });
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      stopped = true;
      process.emit('SIGTERM', 'SIGTERM');
      resolve();
    }, START_BOUND_MS);
  });
  await Promise.race([run, bound]);
  clearTimeout(timer);
  const result = await run;
  assert.ok(!stopped, `serving instead of refusing to start; stderr: ${result.stderr}`);
  return result;
}

async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/**
 * The start-up and following tests of `lnswap serve` on one chain's node (`open`), each call answered wrongly in
 * each of the ways of `WRONG_ANSWERS`.
 */
export function describeServeAgainstHostileNode(
  label: string,
  open: () => Promise<ChainUnderTest>,
  skip: string | false,
): void {
  describe(`lnswap serve following ${label} through a node answering wrongly`, { skip }, () => {
    let chain: ChainUnderTest;
    const stores: FreshStore[] = [];
    before(async () => {
      chain = await open();
    });
    after(async () => {
      await chain?.close();
      await Promise.all(stores.map((fresh) => fresh.dispose().catch(() => undefined)));
    });

    test('at start: exit 1 and one line naming the call and the fault, the store untouched', async (t) => {
      const fresh = await storeOffering(chain.markets);
      stores.push(fresh);
      const args = ['serve', '--db', fresh.url, '--port', '0', ...chain.nodeArgs];
      for (const call of chain.startCalls) {
        for (const { label: answerLabel, answer } of WRONG_ANSWERS) {
          chain.node.wrongAnswer = { call: chain.wrongCall(call), answer };
          chain.node.mode = 'wrongAnswer';
          const answeredBefore = chain.node.wrongAnswers();
          const result = await startInProcess(args, chain.env);
          assert.ok(chain.node.wrongAnswers() > answeredBefore, `${call} was called and answered ${answerLabel}`);
          assert.equal(result.code, 1, `${call} answered ${answerLabel}: ${result.stderr}`);
          assertNamedRefusal(result.stderr, chain, call);
          t.diagnostic(`${call} answered ${answerLabel}: ${result.stderr.trim()}`);
        }
      }
      chain.node.mode = 'honest';
      assert.deepEqual(await chainViewsIn(fresh.url), {}, 'no chain view written by a refused start');
    });

    test('at start, as its own process: exit status 1, the same line, no stack trace on stdout', async () => {
      const fresh = await storeOffering(chain.markets);
      stores.push(fresh);
      chain.node.wrongAnswer = { call: chain.wrongCall(chain.processStartCall), answer: null };
      chain.node.mode = 'wrongAnswer';
      try {
        const result = await runCli(['serve', '--db', fresh.url, '--port', '0', ...chain.nodeArgs], {
          env: { ...chain.env, LOG_LEVEL: 'info' },
        });
        assert.equal(result.code, 1, result.stderr);
        assertNamedRefusal(result.stderr, chain, chain.processStartCall);
        assertNoStackTrace(result.stdout);
      } finally {
        chain.node.mode = 'honest';
      }
    });

    test('while following: serving on, asking again, said on /readyz or /metrics, caught up once honest', async (t) => {
      const fresh = await storeOffering(chain.markets);
      stores.push(fresh);
      chain.node.mode = 'honest';
      const mark = chain.mark();
      const child = startCli(['serve', '--db', fresh.url, '--port', '0', ...chain.nodeArgs, ...chain.pollArgs], {
        env: { ...chain.env, LOG_LEVEL: 'info' },
      });
      const output = Promise.all([readAll(child.stdout), readAll(child.stderr)]);
      try {
        const url = await waitForLine(child, (line) => {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          return entry.msg === 'lnswap is serving' ? entry.url : undefined;
        });
        const startSeen = new Set(chain.callsSince(mark));
        for (const call of chain.startCalls) assert.ok(startSeen.has(call), `${call} is made at start`);
        const readyz = async () => (await fetch(`${url}/readyz`)).text();
        const caughtUp = async () => {
          const metrics = await metricsOf(url);
          const tip = await chain.tipHeight();
          return (
            metrics.includes(`lnswap_chain_tip_height{chain="${chain.chain}"} ${tip}\n`) &&
            metrics.includes(`lnswap_chain_watcher_lag_blocks{chain="${chain.chain}"} 0\n`) &&
            (chain.chain === 'ethereum' || metrics.includes(`lnswap_chain_mempool_listed{chain="bitcoin"} 1\n`)) &&
            (await readyz()) === 'Ready'
          );
        };
        const followingMark = chain.mark();
        await chain.advance();
        await chain.advance();
        const listed = Object.keys(chain.followingCalls);
        await eventually(
          async () => (await caughtUp()) && listed.every((call) => chain.callsSince(followingMark).includes(call)),
          'every call listed made while following an honest node',
        );
        const unlisted = [...new Set(chain.callsSince(mark))].filter(
          (call) => !listed.includes(call) && !chain.startCalls.includes(call),
        );
        assert.deepEqual(unlisted, [], 'calls this file has no case for');

        // Each call answered wrongly in each of the ways in turn, a block mined meanwhile, then honestly again: the
        // blocks it could not read are read then.
        for (const [call, effect] of Object.entries(chain.followingCalls)) {
          const started = performance.now();
          chain.node.mode = 'wrongAnswer';
          await chain.advance();
          for (const { label: answerLabel, answer } of WRONG_ANSWERS) {
            const what = `${call} answered ${answerLabel}`;
            const answeredBefore = chain.node.wrongAnswers();
            chain.node.wrongAnswer = { call: chain.wrongCall(call), answer };
            await eventually(async () => {
              if (chain.node.wrongAnswers() < answeredBefore + 2) return false;
              const token = await readyz();
              if (effect === 'misbehaving') return token === 'ChainNodeMisbehaving';
              const metrics = await metricsOf(url);
              return token === 'Ready' && metrics.includes(`lnswap_chain_mempool_listed{chain="bitcoin"} 0\n`);
            }, `${what}: asked again and reported`);
            assert.equal(child.exitCode, null, `${what}: still running`);
          }
          const reported = performance.now();
          chain.node.mode = 'honest';
          await eventually(caughtUp, `${call}: caught up once honest`);
          t.diagnostic(
            `${call}: four wrong answers each asked again and reported in ${Math.round(reported - started)} ms, ` +
              `caught up in ${Math.round(performance.now() - reported)} ms`,
          );
        }
        child.kill('SIGTERM');
        const [code] = await once(child, 'close');
        assert.equal(code, 0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        chain.node.mode = 'honest';
      }
      const [stdout, stderr] = await output;
      assertNoStackTrace(stdout);
      assertNoStackTrace(stderr);
      assert.match(stdout, /"fault":"badAnswer"/, 'the log names the fault');
    });
  });
}

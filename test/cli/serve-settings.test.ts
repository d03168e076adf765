import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { parseArgs } from 'node:util';
import { DEFAULT_ETHEREUM_CONFIRMATIONS } from '../../src/engine/chain-following/ethereum-watch.js';
import {
  HEAP_GROWTH_SETTING,
  readServeSettings,
  readSetting,
  SERVE_SETTINGS,
  settingOptions,
} from '../../src/cli/serve-settings.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { runCli } from '../support/cli/cli-process.js';
import { repositoryPath } from '../support/repository.js';

const CONTRACT = '0x5fbdb2315678afecb367f032d99f642f64180aa3';

function settings(args: string[], env: Record<string, string> = {}) {
  const { values } = parseArgs({ args, options: settingOptions() });
  return readServeSettings(values, env);
}

test('engine knobs come from flags, then the environment, then the defaults', () => {
  assert.deepEqual(settings([]).engine, {});
  assert.deepEqual(settings([], { QUOTE_DEADLINE_MS: '1500' }).engine, { quoteDeadlineMs: 1500 });
  assert.deepEqual(settings(['--quote-deadline-ms', '700'], { QUOTE_DEADLINE_MS: '1500' }).engine, {
    quoteDeadlineMs: 700,
  });
  assert.deepEqual(
    settings(['--max-swaps-in-flight', '5', '--sweep-interval-ms', '250'], { PRESENCE_INTERVAL_MS: '9000' }).engine,
    { maxSwapsInFlight: 5, sweepIntervalMs: 250, presenceIntervalMs: 9000 },
  );
});

test('without an Ethereum node the service works from chain views; with one, its settings are read', () => {
  assert.equal(settings([]).ethereum, undefined);
  assert.deepEqual(settings(['--ethereum-rpc', 'http://127.0.0.1:8545']).ethereum, {
    rpcUrl: 'http://127.0.0.1:8545',
    confirmations: DEFAULT_ETHEREUM_CONFIRMATIONS,
  });
  assert.deepEqual(
    settings(['--ethereum-confirmations', '2'], {
      ETHEREUM_RPC_URL: 'https://node:8545',
      SWAP_CONTRACT_ADDRESS: CONTRACT,
      ETHEREUM_CONFIRMATIONS: '12',
    }).ethereum,
    { rpcUrl: 'https://node:8545', swapContractAddress: CONTRACT, confirmations: 2 },
  );
});

test('a bad value is a usage error naming where it came from', () => {
  const refused = (args: string[], env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => settings(args, env),
      (error: unknown) => error instanceof UsageError && message.test(error.message),
    );
  refused(['--quote-deadline-ms', '1.5'], {}, /^--quote-deadline-ms must be a whole number, not "1.5"$/);
  refused([], { MAX_SWAPS_IN_FLIGHT: '-1' }, /^MAX_SWAPS_IN_FLIGHT must be a whole number/);
  refused(['--ethereum-rpc', 'ftp://x'], {}, /^--ethereum-rpc must be an http:\/\/ or https:\/\/ URL/);
  refused([], { ETHEREUM_RPC_URL: 'localhost:8545' }, /^ETHEREUM_RPC_URL must be/);
  refused([], { ETHEREUM_RPC_URL: 'ws://node:8546' }, /^ETHEREUM_RPC_URL must be/);
  refused(
    ['--ethereum-rpc', 'http://n', '--swap-contract', '0x1234'],
    {},
    /^--swap-contract must be an Ethereum address/,
  );
  refused(['--ethereum-rpc', 'http://n', '--ethereum-confirmations', '0'], {}, /^--ethereum-confirmations must be/);
  refused(['--swap-contract', CONTRACT], {}, /needs an Ethereum node/);
  refused(
    ['--min-fund-window-ms', '10', '--max-fund-window-ms', '5'],
    {},
    /^--min-fund-window-ms must not exceed --max-fund-window-ms$/,
  );
  // A flag's good value wins over the environment's bad one: the environment is not read.
  assert.equal(settings(['--quote-deadline-ms', '10'], { QUOTE_DEADLINE_MS: 'soon' }).engine.quoteDeadlineMs, 10);
});

test('lnswap serve refuses a bad setting with exit code 2 before opening any database', async () => {
  const result = await runCli(['serve', '--db', 'sqlite::memory:', '--ethereum-confirmations', 'many']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--ethereum-confirmations must be a whole number from 1 to 9999, not "many"/);
  const help = await runCli(['serve', '--help']);
  for (const setting of SERVE_SETTINGS) {
    assert.ok(help.stdout.includes(`--${setting.flag} ${setting.valueName}`), setting.flag);
    assert.ok(help.stdout.includes(`env ${setting.env}`), setting.env);
  }
});

test("the command line's reference page documents every setting", async () => {
  const file = 'docs/snapshot-and-cli.md';
  const text = await readFile(repositoryPath(file), 'utf8');
  for (const setting of SERVE_SETTINGS) {
    assert.ok(text.includes(`--${setting.flag}`), `${file} lacks --${setting.flag}`);
    assert.ok(text.includes(setting.env), `${file} lacks ${setting.env}`);
  }
});

test('metrics are on unless --metrics off (or METRICS=off) turns them off', () => {
  assert.equal(settings([]).metrics, true);
  assert.equal(settings(['--metrics', 'off']).metrics, false);
  assert.equal(settings([], { METRICS: 'off' }).metrics, false);
  assert.equal(settings(['--metrics', 'on'], { METRICS: 'off' }).metrics, true);
  assert.throws(
    () => settings(['--metrics', 'no']),
    (error: unknown) => {
      return error instanceof UsageError && error.message === '--metrics must be on or off, not "no"';
    },
  );
});

test('Bitcoin: one backend or none, credentials from the environment, both at once refused', () => {
  assert.equal(settings([]).bitcoin, undefined);
  assert.deepEqual(settings(['--bitcoin-esplora', 'https://mempool.space/api']).bitcoin, {
    esploraUrl: 'https://mempool.space/api',
    confirmations: 2,
    pollIntervalMs: 10_000,
    mempoolIntervalMs: 2_000,
  });
  assert.deepEqual(
    settings(['--bitcoin-confirmations', '3'], {
      BITCOIN_RPC_URL: 'http://127.0.0.1:8332',
      BITCOIN_RPC_USER: 'lnswap',
      BITCOIN_RPC_PASSWORD: 'secret',
      BITCOIN_POLL_INTERVAL_MS: '500',
      BITCOIN_MEMPOOL_INTERVAL_MS: '100',
    }).bitcoin,
    {
      rpcUrl: 'http://127.0.0.1:8332',
      confirmations: 3,
      pollIntervalMs: 500,
      mempoolIntervalMs: 100,
      rpcUser: 'lnswap',
      rpcPassword: 'secret',
    },
  );
  assert.throws(
    () => settings(['--bitcoin-esplora', 'https://mempool.space/api'], { BITCOIN_RPC_URL: 'http://127.0.0.1:8332' }),
    (error: unknown) => error instanceof UsageError && /not both/.test(error.message),
  );
  assert.throws(() => settings(['--bitcoin-rpc', 'ftp://node']), /--bitcoin-rpc must be an http or https URL/);
  assert.throws(() => settings([], { BITCOIN_CONFIRMATIONS: '0' }), /BITCOIN_CONFIRMATIONS must be a whole number/);
  assert.throws(
    () => settings(['--bitcoin-mempool-interval-ms', '0']),
    /--bitcoin-mempool-interval-ms must be a whole number of ms/,
  );
});

test('the heap growth bound is a whole percentage, from the flag or HEAP_GROWTH_PERCENT', async () => {
  const flags = (args: string[]) => parseArgs({ args, options: settingOptions() }).values;
  assert.equal(readSetting(HEAP_GROWTH_SETTING, flags(['--heap-growth-percent', '80']), {}), 80);
  assert.equal(readSetting(HEAP_GROWTH_SETTING, flags([]), { HEAP_GROWTH_PERCENT: '0' }), 0);
  assert.equal(readSetting(HEAP_GROWTH_SETTING, flags([]), {}), undefined);
  const refused = await runCli(['serve', '--db', 'sqlite::memory:', '--heap-growth-percent', 'half']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--heap-growth-percent must be a whole number from 0 to 1000, not "half"/);
});

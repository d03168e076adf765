import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { render, validDocument } from '../support/snapshot/snapshot-fixtures.js';
import { runCli, runInProcess } from '../support/cli/cli-process.js';

const USDC_CHECKSUMMED = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

describe('lnswap tokens', () => {
  let directory: string;
  let db: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'lnswap-tokens-'));
    db = `sqlite:${join(directory, 'store.sqlite')}`;
    const snapshot = join(directory, 'snapshot.json');
    await writeFile(snapshot, render(validDocument()));
    const imported = await runInProcess(['import', snapshot], { env: { DATABASE_URL: db } });
    assert.equal(imported.code, 0, imported.stderr);
  });
  after(() => rm(directory, { recursive: true, force: true }));

  test('add configures the token, offers its market, and export carries both', async () => {
    const added = await runCli(
      ['tokens', 'add', 'usdc', '--network', 'mainnet', '--address', USDC_CHECKSUMMED, '--decimals', '6'],
      { env: { DATABASE_URL: db } },
    );
    assert.equal(added.code, 0, added.stderr);
    assert.equal(
      added.stdout,
      `token USDC added (mainnet, 6 decimals, contract ${USDC_CHECKSUMMED.toLowerCase()}); market USDC_LBTC offered\n`,
    );

    const listed = await runInProcess(['tokens', 'list'], { env: { DATABASE_URL: db } });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      listed.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/ +/)),
      [
        ['TICKER', 'NETWORK', 'DECIMALS', 'ADDRESS', 'MARKET', 'OFFERED'],
        ['USDC', 'mainnet', '6', USDC_CHECKSUMMED.toLowerCase(), 'USDC_LBTC', 'yes'],
      ],
    );

    const exported = await runInProcess(['export'], { env: { DATABASE_URL: db } });
    assert.equal(exported.code, 0, exported.stderr);
    const snapshot = JSON.parse(exported.stdout) as { tokens: unknown; markets: string[] };
    assert.deepEqual(snapshot.tokens, [
      { ticker: 'USDC', network: 'mainnet', address: USDC_CHECKSUMMED.toLowerCase(), decimals: 6 },
    ]);
    assert.deepEqual(snapshot.markets, [...validDocument().markets, 'USDC_LBTC']);
  });

  test('refuses a ticker or contract already configured, leaving the store as it was', async () => {
    const again = ['--network', 'mainnet', '--decimals', '6'];
    const env = { env: { DATABASE_URL: db } };
    const sameTicker = await runInProcess(
      ['tokens', 'add', 'USDC', '--address', `0x${'11'.repeat(20)}`, ...again],
      env,
    );
    assert.equal(sameTicker.code, 1);
    assert.equal(sameTicker.stderr, 'lnswap tokens: cannot add USDC: ticker repeats USDC\n');
    const sameContract = await runInProcess(['tokens', 'add', 'USDX', '--address', USDC_CHECKSUMMED, ...again], env);
    assert.equal(sameContract.code, 1);
    assert.equal(
      sameContract.stderr,
      'lnswap tokens: cannot add USDX: address is already the contract of USDC on mainnet\n',
    );
    const listed = await runInProcess(['tokens', 'list'], { env: { DATABASE_URL: db } });
    assert.equal(listed.stdout.trimEnd().split('\n').length, 2);
  });

  test('refuses bad arguments as usage errors', async () => {
    const base = ['--address', `0x${'22'.repeat(20)}`, '--decimals', '6'];
    const cases: [string[], RegExp][] = [
      [['tokens', 'add', 'ETH', '--network', 'mainnet', ...base], /ticker: ETH is a known ticker/],
      [['tokens', 'add', 'DAI', '--network', 'regtest', ...base], /--network must be one of mainnet, testnet, simnet/],
      [['tokens', 'add', 'DAI', '--network', 'mainnet', '--address', '0x1234', '--decimals', '6'], /address: must be/],
      [
        ['tokens', 'add', 'DAI', '--network', 'mainnet', '--address', `0x${'22'.repeat(20)}`, '--decimals', 'six'],
        /--decimals/,
      ],
      [['tokens', 'remove', 'USDC'], /unknown action "remove"/],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess(args, { env: { DATABASE_URL: db } });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});

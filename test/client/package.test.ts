/**
 * `@lnswap/client` as a wallet gets it: `npm pack` builds and packs it, the tarball installs offline into a project
 * of its own beside the peers a wallet already has (viem, socket.io-client, bitcoinjs-lib), plain Node ESM imports
 * it by name and reads a running service with it, TypeScript finds its types, and a browser bundle of it holds no
 * Node module.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { repositoryPath } from '../support/repository.js';
import { BOT_PAY_REQ, makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';
import { addProvider, startTestService, type TestService } from '../support/ws/harness.js';

const run = promisify(execFile);
const PEERS = ['bitcoinjs-lib', 'socket.io-client', 'viem'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('the packed @lnswap/client in a project of its own', () => {
  let dir: string;
  let project: string;
  let harness: TestService;
  let running: RunningBot;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lnswap-client-package-'));
    await run(npm, ['pack', '--pack-destination', dir, '--silent'], { cwd: repositoryPath('packages', 'client') });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    assert.equal(tarball, 'lnswap-client-0.1.0.tgz');
    project = join(dir, 'wallet');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'wallet', version: '1.0.0', type: 'module' }));
    // The wallet's own copies of the peers: the repository's, as the registry is not reached.
    for (const peer of PEERS) symlinkSync(repositoryPath('node_modules', peer), join(project, 'node_modules', peer));
    await run(npm, ['install', join(dir, tarball), '--offline', '--no-audit', '--no-fund', '--silent'], {
      cwd: project,
    });
    harness = await startTestService('sqlite');
    const keys = await addProvider(harness.fresh.store, 'package-maker');
    running = await runBot(harness.service.url, keys, makerTerms('package-maker', 100n, 600_000));
  });
  after(async () => {
    running?.bot.close();
    await harness?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('plain Node ESM imports it by name and reads the service over HTTP and socket.io', async () => {
    const program = join(project, 'read.mjs');
    writeFileSync(
      program,
      [
        "import { createLnswapClient, ServiceRefusal } from '@lnswap/client';",
        'const client = createLnswapClient({ url: process.argv[2], timeoutMs: 5000 });',
        'const markets = await client.markets();',
        'const requirements = await client.requestMarketRequirements();',
        "const refusal = await client.order('8b1d3e5c-0000-4000-8000-000000000000').catch((error) => error);",
        'client.close();',
        'console.log(JSON.stringify({ markets, requirements, token: refusal instanceof ServiceRefusal && refusal.token }));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [program, harness.service.url], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), {
      markets: [
        { onchainTicker: 'BTC', offchainTicker: 'LBTC', market: 'BTC_LBTC' },
        { onchainTicker: 'ETH', offchainTicker: 'LBTC', market: 'ETH_LBTC' },
      ],
      requirements: [
        { market: 'BTC_LBTC', payReq: BOT_PAY_REQ },
        { market: 'ETH_LBTC', payReq: BOT_PAY_REQ },
      ],
      token: 'OrderNotFound',
    });
  });

  test('TypeScript finds its types: the answers are the service schemas, a wrong field does not compile', async () => {
    const source = (body: string) =>
      [
        "import { createLnswapClient, fundingTransactions, type FundingDetailsView } from '@lnswap/client';",
        "const client = createLnswapClient({ url: 'http://127.0.0.1:1' });",
        'export async function quote(invoice: string): Promise<bigint> {',
        "  const details: FundingDetailsView = await client.requestQuote({ market: 'ETH_LBTC', invoice });",
        body,
        '}',
      ].join('\n');
    // One compiler run over both files (tsc is most of this file's time): the right one must compile, the wrong one not.
    writeFileSync(
      join(project, 'right.ts'),
      source(
        [
          "  const [fund] = fundingTransactions(details, { swapContract: '0x5fbdb2315678afecb367f032d93f642f64180aa3' });",
          '  return fund!.value + BigInt(details.expiryTimestampMs);',
        ].join('\n'),
      ),
    );
    writeFileSync(join(project, 'wrong.ts'), source('  return BigInt(details.expiresAt);'));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          module: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['right.ts', 'wrong.ts'],
      }),
    );
    const tsc = repositoryPath('node_modules', 'typescript', 'bin', 'tsc');
    const errors = await run(process.execPath, [tsc, '-p', project], { cwd: project })
      .then(() => '')
      .catch((error: { stdout: string }) => error.stdout);
    const lines = errors.split('\n').filter((line) => line.includes('error TS'));
    assert.deepEqual(
      lines.filter((line) => !line.startsWith('wrong.ts')),
      [],
      'the right use compiles',
    );
    assert.match(lines.join('\n'), /^wrong\.ts.*Property 'expiresAt' does not exist/m);
  });

  test('a browser bundle of it, peers included, holds no Node module', async () => {
    const result = await build({
      stdin: { contents: "export * from '@lnswap/client';", resolveDir: project },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(
      inputs.some((input) => input.endsWith('@lnswap/client/dist/browser/index.js')),
      'the browser build',
    );
    assert.deepEqual(
      inputs
        .filter((input) => input.startsWith('node:') || !input.includes('node_modules'))
        .filter((input) => input !== '<stdin>'),
      [],
    );
    const code = result.outputFiles[0]!.text;
    assert.doesNotMatch(code, /\bfrom\s*["']node:|require\(["']node:/u);
  });
});

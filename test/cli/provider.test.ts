import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { PROVIDER_SECRETS, PROVIDER_SETTINGS } from '../../src/cli/provider-settings.js';
import { openStore } from '../../src/store/open.js';
import { makeSelfSignedCertificate } from '../support/lightning/self-signed-certificate.js';
import { repositoryPath } from '../support/repository.js';
import { runCli } from '../support/cli/cli-process.js';

describe('lnswap provider: its command line', () => {
  test('--help lists every setting with its variable, and every secret variable', async () => {
    const { code, stdout } = await runCli(['provider', '--help']);
    assert.equal(code, 0);
    for (const setting of Object.values(PROVIDER_SETTINGS)) {
      assert.match(stdout, new RegExp(`--${setting.flag} `), setting.flag);
      assert.ok(stdout.includes(setting.env), setting.env);
    }
    for (const secret of PROVIDER_SECRETS) assert.ok(stdout.includes(secret.env), secret.env);
    assert.doesNotMatch(stdout, /--(api-key|secret-key|ethereum-key)/, 'no secret has a flag');
  });

  test('a missing secret is named and no value given is repeated', async () => {
    const { code, stderr, stdout } = await runCli(
      ['provider', '--config', 'provider.json', '--service-url', 'http://127.0.0.1:1'],
      {
        env: { LNSWAP_PROVIDER_API_KEY: 'visible-api-key-123' },
      },
    );
    assert.equal(code, 2);
    assert.match(stderr, /LNSWAP_PROVIDER_SECRET_KEY is not set/);
    assert.ok(!`${stdout}${stderr}`.includes('visible-api-key-123'));
  });

  test("--state naming the service's own database is refused with the file and its tables, nothing added", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-cli-'));
    try {
      const serviceDatabase = join(dir, 'lnswap.sqlite');
      await (await openStore(`sqlite:${serviceDatabase}`)).close();
      writeFileSync(join(dir, 'tls.cert'), makeSelfSignedCertificate().certificatePem);
      writeFileSync(join(dir, 'provider.macaroon'), Buffer.from('0201036c6e64', 'hex'));
      const example = JSON.parse(readFileSync(repositoryPath('examples', 'provider.json'), 'utf8')) as {
        lightning: Record<string, string>;
        bitcoin?: unknown;
        markets: Record<string, unknown>;
      };
      delete example.bitcoin;
      example.markets = { ETH_LBTC: example.markets['ETH_LBTC'] };
      example.lightning = {
        ...example.lightning,
        macaroonFile: join(dir, 'provider.macaroon'),
        tlsCertFile: join(dir, 'tls.cert'),
      };
      writeFileSync(join(dir, 'provider.json'), JSON.stringify(example));
      const { code, stderr } = await runCli(
        [
          'provider',
          '--config',
          join(dir, 'provider.json'),
          '--service-url',
          'http://127.0.0.1:1',
          '--state',
          serviceDatabase,
          '--ethereum-rpc',
          'http://127.0.0.1:1',
          '--metrics-port',
          'off',
        ],
        {
          env: {
            LNSWAP_PROVIDER_API_KEY: 'api-key',
            LNSWAP_PROVIDER_SECRET_KEY: 'secret-key',
            LNSWAP_PROVIDER_ETHEREUM_KEY: `0x${'11'.repeat(32)}`,
          },
        },
      );
      assert.equal(code, 1, stderr);
      assert.ok(stderr.includes(`provider state: ${serviceDatabase} holds tables of another program (`), stderr);
      assert.match(stderr, /\borders\b/);
      const raw = new Database(serviceDatabase, { readonly: true });
      try {
        const tables = raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[];
        assert.ok(!tables.some((table) => ['payments', 'claims', 'quotes'].includes(table.name)), 'nothing added');
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a secret offered as a flag is refused as an unknown option', async () => {
    const { code, stderr } = await runCli(['provider', '--secret-key', 'hunter2']);
    assert.equal(code, 2);
    assert.match(stderr, /Unknown option '--secret-key'/);
    assert.ok(!stderr.includes('hunter2'));
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROVIDER_SECRETS, PROVIDER_SETTINGS } from '../../src/cli/provider-settings.js';
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

  test('a secret offered as a flag is refused as an unknown option', async () => {
    const { code, stderr } = await runCli(['provider', '--secret-key', 'hunter2']);
    assert.equal(code, 2);
    assert.match(stderr, /Unknown option '--secret-key'/);
    assert.ok(!stderr.includes('hunter2'));
  });
});

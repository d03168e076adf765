import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { configuration } from '../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { runCli, runInProcess } from '../support/cli/cli-process.js';
import { connectClient, eventually, refusalOf, startOnStore, succeed, type Client } from '../support/ws/harness.js';
import type { RunningService } from '../../src/service.js';

const CONFIGURATION = {
  BTC_LBTC: { payReq: { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '100000' } },
};

describe('lnswap providers', () => {
  let fresh: FreshStore;
  let service: RunningService;
  const clients: Client[] = [];

  before(async () => {
    fresh = await openFreshStore('sqlite');
    await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
    service = await startOnStore(fresh.store, fresh.url, { engine: { presenceIntervalMs: 100 } });
  });
  after(async () => {
    for (const client of clients) client.close();
    await service?.close();
    await fresh?.dispose();
  });

  test('add prints the keys once, list shows the provider serving, revoke cuts it off', async () => {
    const added = await runCli(['providers', 'add', 'maker-1', '--db', fresh.url]);
    assert.equal(added.code, 0, added.stderr);
    const apiKey = /^LNSWAP_PROVIDER_API_KEY=([0-9a-f]{32})$/m.exec(added.stdout)?.[1];
    const secretKey = /^LNSWAP_PROVIDER_SECRET_KEY=([\w-]{43})$/m.exec(added.stdout)?.[1];
    assert.ok(apiKey && secretKey, added.stdout);
    const [stored] = await fresh.store.listProviderCredentials();
    assert.equal(stored?.name, 'maker-1');
    assert.equal(stored?.apiKey, apiKey);
    assert.match(stored?.secretHash ?? '', /^scrypt\$/);
    assert.equal(stored?.secretHash.includes(secretKey), false);

    const duplicate = await runInProcess(['providers', 'add', 'maker-1', '--db', fresh.url]);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);

    const provider = await connectClient(service.url, '/provider/v1', 'v2');
    clients.push(provider);
    await succeed(provider, 'authenticate', { apiKey, secretKey });
    await succeed(provider, 'activeConfiguration', CONFIGURATION);

    const listed = await runInProcess(['providers', 'list', '--db', fresh.url]);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    assert.match(header ?? '', /^NAME\s+API KEY\s+CREATED\s+STATUS\s+SERVING\s+ETHEREUM PAYOUT$/);
    assert.match(
      row ?? '',
      new RegExp(`^maker-1\\s+${apiKey}\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+valid\\s+yes\\s+-$`),
    );
    assert.deepEqual(rest, []);

    const revoked = await runInProcess(['providers', 'revoke', 'maker-1', '--db', fresh.url]);
    assert.equal(revoked.code, 0, revoked.stderr);
    await eventually(() => !provider.connected, 'the revoked provider to be disconnected');
    const { providers } = await fresh.store.getConfiguration();
    assert.equal(providers.find((record) => record.id === 'maker-1')?.active, false);

    const again = await connectClient(service.url, '/provider/v1');
    clients.push(again);
    assert.equal(await refusalOf(again, 'authenticate', { apiKey, secretKey }), 'InvalidOrMissingCredentials');
    const listedAfter = await runInProcess(['providers', 'list', '--db', fresh.url]);
    assert.match(listedAfter.stdout, /maker-1\s+\S+\s+\S+\s+revoked \S+Z\s+no\s+-\n/);

    const revokedTwice = await runInProcess(['providers', 'revoke', 'maker-1', '--db', fresh.url]);
    assert.equal(revokedTwice.code, 1);
  });

  test('usage errors exit 2 without touching the database', async () => {
    for (const args of [
      ['providers', 'rename', 'x'],
      ['providers', 'add', 'bad name'],
    ]) {
      const result = await runInProcess([...args, '--db', 'sqlite:/nonexistent/dir/db.sqlite']);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    }
  });
});

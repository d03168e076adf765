import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { runCli, runInProcess } from '../support/cli/cli-process.js';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const NEW_PAYOUT = '0x00000000000000000000000000000000000000b2';

describe('lnswap providers: Ethereum payout addresses', () => {
  let fresh: FreshStore;

  before(async () => {
    fresh = await openFreshStore('sqlite');
  });
  after(async () => {
    await fresh?.dispose();
  });

  async function payoutOf(name: string): Promise<string | undefined> {
    const credentials = await fresh.store.listProviderCredentials();
    return credentials.find((credential) => credential.name === name)?.ethereumPayoutAddress;
  }

  test('add --ethereum-payout stores the address in lower case and list shows it', async () => {
    const added = await runCli(['providers', 'add', 'maker-1', '--ethereum-payout', PAYOUT, '--db', fresh.url]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^LNSWAP_PROVIDER_API_KEY=[0-9a-f]{32}\nLNSWAP_PROVIDER_SECRET_KEY=[\w-]{43}$/m);
    assert.match(added.stdout, new RegExp(`^LNSWAP_ETHEREUM_PAYOUT=${PAYOUT.toLowerCase()}$`, 'm'));
    assert.equal(await payoutOf('maker-1'), PAYOUT.toLowerCase());
    const listed = await runInProcess(['providers', 'list', '--db', fresh.url]);
    assert.match(listed.stdout, /ETHEREUM PAYOUT\n/);
    assert.match(listed.stdout, new RegExp(`^maker-1 .*valid\\s+no\\s+${PAYOUT.toLowerCase()}$`, 'm'));
  });

  test('set-payout changes the address of a valid credential, and of no other', async () => {
    const withoutPayout = await runInProcess(['providers', 'add', 'maker-2', '--db', fresh.url]);
    assert.equal(withoutPayout.code, 0, withoutPayout.stderr);
    assert.doesNotMatch(withoutPayout.stdout, /LNSWAP_ETHEREUM_PAYOUT/);
    assert.equal(await payoutOf('maker-2'), undefined);

    const set = await runInProcess(['providers', 'set-payout', 'maker-2', NEW_PAYOUT, '--db', fresh.url]);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(await payoutOf('maker-2'), NEW_PAYOUT);
    assert.equal(await payoutOf('maker-1'), PAYOUT.toLowerCase());

    const unknown = await runInProcess(['providers', 'set-payout', 'nobody', NEW_PAYOUT, '--db', fresh.url]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no provider named nobody/);

    assert.equal((await runInProcess(['providers', 'revoke', 'maker-2', '--db', fresh.url])).code, 0);
    const revoked = await runInProcess(['providers', 'set-payout', 'maker-2', PAYOUT, '--db', fresh.url]);
    assert.equal(revoked.code, 1);
    assert.equal(await payoutOf('maker-2'), NEW_PAYOUT);
  });

  test('a bad payout address is a usage error and writes nothing', async () => {
    const bad = [
      ['providers', 'add', 'maker-3', '--ethereum-payout', '0x1234'],
      ['providers', 'add', 'maker-3', '--ethereum-payout', '0x0000000000000000000000000000000000000000'],
      ['providers', 'add', 'maker-3', '--ethereum-payout', '0x52908400098527886E0F7030069857D2E4169Ee7'],
      ['providers', 'set-payout', 'maker-1', 'not-an-address'],
      ['providers', 'set-payout', 'maker-1'],
      ['providers', 'revoke', 'maker-1', '--ethereum-payout', NEW_PAYOUT],
    ];
    for (const args of bad) {
      const result = await runInProcess([...args, '--db', fresh.url]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    }
    assert.equal(await payoutOf('maker-3'), undefined);
    assert.equal(await payoutOf('maker-1'), PAYOUT.toLowerCase());
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  authenticateProvider,
  hashSecret,
  issueProviderCredential,
  secretMatchesHash,
} from '../../../src/engine/operations/credentials.js';
import { isValidProviderName } from '../../../src/domain/provider-names.js';
import { openFreshStore, type FreshStore } from '../../support/stores.js';
import { refusal } from '../../support/refusal.js';

describe('secret hashing', () => {
  test('a hash is salted scrypt that only the same secret matches', async () => {
    const first = await hashSecret('correct horse');
    const second = await hashSecret('correct horse');
    assert.match(first, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(first, second, 'each hash has its own salt');
    assert.equal(await secretMatchesHash('correct horse', first), true);
    assert.equal(await secretMatchesHash('correct horse', second), true);
    assert.equal(await secretMatchesHash('correct horsf', first), false);
    assert.equal(await secretMatchesHash('correct horse', 'plain'), false);
    assert.equal(await secretMatchesHash('correct horse', first.replace('$32768$', '$x$')), false);
  });

  test('provider names are short and plain', () => {
    assert.equal(isValidProviderName('maker-1'), true);
    assert.equal(isValidProviderName('Maker_2.eu'), true);
    for (const name of ['', '-maker', 'maker 1', 'a'.repeat(65), 'maker/1'])
      assert.equal(isValidProviderName(name), false, name);
  });
});

describe('authenticateProvider', () => {
  let fresh: FreshStore;
  let apiKey: string;
  let secretKey: string;

  before(async () => {
    fresh = await openFreshStore('sqlite');
    const issued = await issueProviderCredential('maker-1', 1000);
    await fresh.store.addProviderCredential(issued.credential);
    ({ apiKey } = issued.credential);
    ({ secretKey } = issued);
    assert.equal(issued.credential.secretHash.includes(secretKey), false, 'the secret itself is never stored');
  });
  after(() => fresh.dispose());

  test('accepts the issued key and secret', async () => {
    const credential = await authenticateProvider(fresh.store, { apiKey, secretKey });
    assert.equal(credential.name, 'maker-1');
  });

  test('InvalidOrMissingCredentials for a wrong secret, an unknown key or a malformed payload', async () => {
    assert.equal(
      await refusal(authenticateProvider(fresh.store, { apiKey, secretKey: `${secretKey}x` })),
      'InvalidOrMissingCredentials',
    );
    assert.equal(
      await refusal(authenticateProvider(fresh.store, { apiKey: 'unknown', secretKey })),
      'InvalidOrMissingCredentials',
    );
    for (const payload of [
      null,
      [],
      { apiKey },
      { secretKey },
      { apiKey: 1, secretKey },
      { apiKey: '', secretKey: '' },
    ]) {
      assert.equal(await refusal(authenticateProvider(fresh.store, payload)), 'InvalidOrMissingCredentials');
    }
  });

  test('InvalidOrMissingCredentials once revoked', async () => {
    const issued = await issueProviderCredential('maker-2', 1000);
    await fresh.store.addProviderCredential(issued.credential);
    await authenticateProvider(fresh.store, { apiKey: issued.credential.apiKey, secretKey: issued.secretKey });
    assert.equal(await fresh.store.revokeProviderCredential('maker-2', 2000), true);
    assert.equal(
      await refusal(
        authenticateProvider(fresh.store, { apiKey: issued.credential.apiKey, secretKey: issued.secretKey }),
      ),
      'InvalidOrMissingCredentials',
    );
  });
});

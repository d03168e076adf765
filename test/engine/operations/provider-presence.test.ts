import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presenceCorrections } from '../../../src/engine/operations/provider-presence.js';
import { provider } from '../../support/fixtures.js';

test('presenceCorrections aligns the active flags of providers with credentials to who is serving', () => {
  const providers = [
    provider('serving', true, {}),
    provider('gone', true, {}),
    provider('back', false, {}),
    provider('idle', false, {}),
    provider('imported-without-credential', true, {}),
    provider('imported-inactive', false, {}),
  ];
  const credentials = new Set(['serving', 'gone', 'back', 'idle']);
  assert.deepEqual(presenceCorrections(providers, credentials, new Set(['serving', 'back', 'imported-inactive'])), {
    deactivate: ['gone'],
    activate: ['back'],
  });
  assert.deepEqual(presenceCorrections(providers, credentials, new Set(['serving', 'gone'])), {
    deactivate: [],
    activate: [],
  });
});

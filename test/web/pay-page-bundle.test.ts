import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { buildPayPage } from '../../scripts/pay-page-bundle.js';
import { repositoryPath } from '../support/repository.js';

test('the committed pay page bundle is what `npm run build:pay-page` builds from web/pay/', async () => {
  const committed = await readFile(repositoryPath('web', 'pay.js'), 'utf8');
  assert.ok(committed === (await buildPayPage()), 'web/pay.js is stale: run `npm run build:pay-page` and commit it');
});

test('the bundle runs under the strict CSP: no eval, no Function constructor, one import of /assets/', async () => {
  const bundle = await readFile(repositoryPath('web', 'pay.js'), 'utf8');
  assert.doesNotMatch(bundle, /\beval\(|new Function\(/);
  const imports = [...bundle.matchAll(/\bimport\s*\w*\s*from\s*"([^"]+)"/g)].map((match) => match[1]);
  assert.deepEqual(
    [...new Set(imports)],
    ['/assets/qrcode.mjs'],
    'the QR code library the tracker serves, nothing else',
  );
});

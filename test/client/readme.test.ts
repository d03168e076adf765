/**
 * The library's README is its reference: its whole swap is the example a test runs on Anvil, line for line and
 * under 30 lines, and it names every export and every call of the client.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as library from '../../src/client/index.js';
import { repositoryPath } from '../support/repository.js';

const readme = readFileSync(repositoryPath('packages', 'client', 'README.md'), 'utf8');

test("the README's whole swap is examples/wallet-swap.ts's payInvoice, in under 30 lines", () => {
  const example = readFileSync(repositoryPath('examples', 'wallet-swap.ts'), 'utf8');
  const shown = /## A wallet's whole swap\n[\s\S]*?```ts\n([\s\S]*?)```/u.exec(readme)?.[1];
  const region = /\/\/ README:start\n([\s\S]*?)\/\/ README:end/u.exec(example)?.[1];
  assert.ok(shown !== undefined && region !== undefined);
  assert.equal(shown, region.replaceAll("'../src/client/index.js'", "'@lnswap/client'"));
  assert.ok(shown.trimEnd().split('\n').length < 30, `${shown.split('\n').length} lines`);
});

test('the README names every export and every call of the client', () => {
  const client = library.createLnswapClient({ url: 'http://127.0.0.1:1' });
  const names = [...Object.keys(library), ...Object.keys(client)];
  assert.ok(names.length >= 30, `${names.length} names`);
  assert.deepEqual(
    names.filter((name) => !readme.includes(name)),
    [],
  );
});
